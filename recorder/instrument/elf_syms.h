/* ELF symbol tables of a loaded object, read from its file with bounds
 * checks on every offset (the file may be anything: truncated, stripped,
 * replaced on disk since it was loaded). Native class and byte order only
 * (the objects of the running process). */
#ifndef ATF_ELF_SYMS_H
#define ATF_ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct elf_sym {
    uint64_t value;       /* st_value: the address minus the load bias */
    const char *name;     /* points into elf_syms.names */
    int rank;             /* binding preference: 0 global, 1 weak, 2 local */
} elf_sym;

typedef struct elf_syms {
    elf_sym *v;           /* function symbols, sorted by value, one per value */
    size_t n;
    char *names;          /* copy of the string table */
    int from_symtab;      /* 1: .symtab, 0: .dynsym */
} elf_syms;

/* Reads the function symbols of @p path (.symtab, else .dynsym).
 * @return 0; -1 with @p why set ("cannot open", "not an ELF file of this
 * class", "section headers out of bounds", ...) when nothing was read. */
int elf_syms_read(const char *path, elf_syms *out, const char **why);
void elf_syms_free(elf_syms *s);

/* Same function symbols, but from an ELF image already in memory (tests). */
int elf_syms_parse(const unsigned char *img, size_t size, elf_syms *out, const char **why);

#endif
