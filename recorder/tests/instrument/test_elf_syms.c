/* elf_syms.c: the function symbols of a real ELF file (this test's own
 * executable), and no read outside the image whatever the bytes say:
 * every truncation of the file, and section headers, symbol entries and
 * string offsets overwritten with hostile values (the ASan build checks
 * each access). */
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf_syms.h"

int elf_test_marker(int x);
int elf_test_marker(int x)
{
    return x + 1;
}

static unsigned char *load_self(size_t *size)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    size_t cap = 1 << 20, n = 0;
    unsigned char *b = malloc(cap);
    assert_non_null(b);
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap);
            assert_non_null(b);
        }
    }
    fclose(f);
    *size = n;
    return b;
}

static void test_own_symbols(void **state)
{
    (void)state;
    elf_syms s;
    const char *why = NULL;
    assert_int_equal(elf_syms_read("/proc/self/exe", &s, &why), 0);
    assert_true(s.from_symtab);
    int found = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (i)
            assert_true(s.v[i - 1].value < s.v[i].value);   /* sorted, one per address */
        if (!strcmp(s.v[i].name, "elf_test_marker"))
            found = 1;
    }
    assert_true(found);
    elf_syms_free(&s);
    assert_int_equal(elf_syms_read("/nonexistent/x", &s, &why), -1);
    assert_string_equal(why, "cannot open");
    assert_int_equal(elf_syms_read("/proc/self/status", &s, &why), -1);   /* not regular-sized */
}

/* Parses a copy of exactly @p n bytes (heap, so that ASan sees its end). */
static int parse_copy(const unsigned char *img, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, img, n);
    elf_syms s;
    const char *why = NULL;
    int rc = elf_syms_parse(c, n, &s, &why);
    if (rc == 0) {
        for (size_t i = 0; i < s.n; i++)
            assert_true(strlen(s.v[i].name) < n);
        elf_syms_free(&s);
    } else {
        assert_non_null(why);
    }
    free(c);
    return rc;
}

static void test_truncations(void **state)
{
    (void)state;
    size_t size;
    unsigned char *img = load_self(&size);
    /* Every length up to the ELF header and past it, then a stride through
     * the file and every length of the last 4 KiB (the section headers). */
    for (size_t n = 0; n < 256 && n < size; n++)
        assert_int_equal(parse_copy(img, n), -1);
    for (size_t n = 256; n < size; n += 997)
        parse_copy(img, n);
    for (size_t n = size > 4096 ? size - 4096 : 0; n < size; n++)
        parse_copy(img, n);
    assert_int_equal(parse_copy(img, size), 0);
    free(img);
}

static void test_hostile_fields(void **state)
{
    (void)state;
    size_t size;
    unsigned char *img = load_self(&size);
    ElfW(Ehdr) eh;
    memcpy(&eh, img, sizeof eh);
    const uint64_t bad[] = { 0, 1, 7, 0x7fffffff, 0xffffffff, UINT64_MAX, UINT64_MAX - 63, size, size - 1 };
    unsigned char *c = malloc(size);
    assert_non_null(c);
    srand(26);
    for (unsigned sec = 0; sec < eh.e_shnum; sec++) {
        size_t at = eh.e_shoff + sec * sizeof(ElfW(Shdr));
        ElfW(Shdr) sh;
        memcpy(&sh, img + at, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_STRTAB)
            continue;
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            for (int field = 0; field < 4; field++) {
                memcpy(c, img, size);
                ElfW(Shdr) h = sh;
                if (field == 0)
                    h.sh_offset = (ElfW(Off))bad[k];
                else if (field == 1)
                    h.sh_size = (ElfW(Xword))bad[k];
                else if (field == 2)
                    h.sh_link = (ElfW(Word))bad[k];
                else
                    h.sh_entsize = (ElfW(Xword))bad[k];
                memcpy(c + at, &h, sizeof h);
                parse_copy(c, size);
            }
        }
        if (sh.sh_type == SHT_SYMTAB && sh.sh_offset + sh.sh_size <= size) {
            /* Random symbol name offsets. */
            memcpy(c, img, size);
            for (size_t i = 0; i < sh.sh_size / sizeof(ElfW(Sym)); i++) {
                ElfW(Sym) sy;
                memcpy(&sy, c + sh.sh_offset + i * sizeof sy, sizeof sy);
                sy.st_name = (ElfW(Word))rand() * 7u;
                memcpy(c + sh.sh_offset + i * sizeof sy, &sy, sizeof sy);
            }
            parse_copy(c, size);
        }
    }
    /* The ELF header's own section table fields. */
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        memcpy(c, img, size);
        ElfW(Ehdr) h = eh;
        h.e_shoff = (ElfW(Off))bad[k];
        memcpy(c, &h, sizeof h);
        parse_copy(c, size);
        h = eh;
        h.e_shnum = (ElfW(Half))bad[k];
        memcpy(c, &h, sizeof h);
        parse_copy(c, size);
    }
    free(c);
    free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_symbols),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_hostile_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
