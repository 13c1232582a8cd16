/* ELF function symbols with a bounds check on every offset (elf_syms.h). */
#include "elf_syms.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* [off, off + len) inside [0, size) without overflow. */
static int in_bounds(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

static int by_value(const void *a, const void *b)
{
    const elf_sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

static int read_table(const unsigned char *img, size_t size, const ElfW(Shdr) *sh, const ElfW(Shdr) *shs,
                      size_t shnum, elf_syms *out, const char **why)
{
    if (sh->sh_entsize != sizeof(ElfW(Sym)) || !in_bounds(sh->sh_offset, sh->sh_size, size)) {
        *why = "symbol table out of bounds";
        return -1;
    }
    if (sh->sh_link >= shnum) {
        *why = "symbol table names a string table that does not exist";
        return -1;
    }
    const ElfW(Shdr) *str = &shs[sh->sh_link];
    if (str->sh_type != SHT_STRTAB || !in_bounds(str->sh_offset, str->sh_size, size) || str->sh_size == 0) {
        *why = "string table out of bounds";
        return -1;
    }
    size_t nsym = sh->sh_size / sizeof(ElfW(Sym));
    const ElfW(Sym) *sym = (const ElfW(Sym) *)(img + sh->sh_offset);
    const char *strs = (const char *)(img + str->sh_offset);
    size_t strsz = str->sh_size;
    out->names = malloc(strsz + 1);
    out->v = malloc((nsym ? nsym : 1) * sizeof *out->v);
    if (!out->names || !out->v) {
        free(out->names);
        free(out->v);
        out->names = NULL;
        out->v = NULL;
        *why = "out of memory";
        return -1;
    }
    memcpy(out->names, strs, strsz);
    out->names[strsz] = '\0';   /* a table whose last string is not terminated stays bounded */
    size_t n = 0;
    for (size_t i = 0; i < nsym; i++) {
        ElfW(Sym) s;
        memcpy(&s, &sym[i], sizeof s);   /* the image may be unaligned */
        int type = ELF64_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || s.st_value == 0 ||
            s.st_name == 0 || s.st_name >= strsz)
            continue;
        int bind = ELF64_ST_BIND(s.st_info);
        out->v[n].value = s.st_value;
        out->v[n].name = out->names + s.st_name;
        out->v[n].rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
        if (!out->v[n].name[0])
            continue;
        n++;
    }
    qsort(out->v, n, sizeof *out->v, by_value);
    /* One name per address: aliases (a weak and a global name, a local
     * alias) keep the global name, then the weak one, then the first by
     * name: SES-MAN-012 wants one entry per function id. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || out->v[k - 1].value != out->v[i].value)
            out->v[k++] = out->v[i];
    out->n = k;
    return 0;
}

int elf_syms_parse(const unsigned char *img, size_t size, elf_syms *out, const char **why)
{
    memset(out, 0, sizeof *out);
    ElfW(Ehdr) eh;
    if (size < sizeof eh || memcmp(img, ELFMAG, SELFMAG) != 0) {
        *why = "not an ELF file";
        return -1;
    }
    memcpy(&eh, img, sizeof eh);
#if __SIZEOF_POINTER__ == 8
    const int cls = ELFCLASS64;
#else
    const int cls = ELFCLASS32;
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const int data = ELFDATA2LSB;
#else
    const int data = ELFDATA2MSB;
#endif
    if (eh.e_ident[EI_CLASS] != cls || eh.e_ident[EI_DATA] != data) {
        *why = "not an ELF file of this process's class and byte order";
        return -1;
    }
    if (eh.e_shoff == 0 || eh.e_shnum == 0) {
        *why = "no section headers";
        return -1;
    }
    if (eh.e_shentsize != sizeof(ElfW(Shdr)) ||
        !in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(ElfW(Shdr)), size) ||
        eh.e_shoff % _Alignof(ElfW(Shdr)) != 0) {
        *why = "section headers out of bounds";
        return -1;
    }
    const ElfW(Shdr) *shs = (const ElfW(Shdr) *)(img + eh.e_shoff);
    const ElfW(Shdr) *symtab = NULL, *dynsym = NULL;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        if (shs[i].sh_type == SHT_SYMTAB && !symtab)
            symtab = &shs[i];
        else if (shs[i].sh_type == SHT_DYNSYM && !dynsym)
            dynsym = &shs[i];
    }
    if (symtab && read_table(img, size, symtab, shs, eh.e_shnum, out, why) == 0) {
        out->from_symtab = 1;
        return 0;
    }
    if (dynsym && read_table(img, size, dynsym, shs, eh.e_shnum, out, why) == 0)
        return 0;
    if (!symtab && !dynsym)
        *why = "no symbol table (.symtab or .dynsym)";
    return -1;
}

int elf_syms_read(const char *path, elf_syms *out, const char **why)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = "cannot open";
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        *why = "not a regular file";
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (img == MAP_FAILED) {
        *why = "cannot map";
        return -1;
    }
    int rc = elf_syms_parse(img, size, out, why);
    munmap(img, size);
    return rc;
}

void elf_syms_free(elf_syms *s)
{
    free(s->v);
    free(s->names);
    memset(s, 0, sizeof *s);
}
