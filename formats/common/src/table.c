/* Zeroed tables that readers index sparsely (common.h). A WTF reader keeps a
 * definition and a plan for each of the 65,536 wire ids and a depth for
 * each zone: about 2.8 MB, of which a file touches a few pages. From calloc
 * such a table costs its whole size in zeroing whenever glibc serves it
 * from the heap, which it does once a block that size has been freed (its
 * mmap threshold rises to it), and trimming the heap gives the pages back
 * to be faulted in again by the next reader: a run over a thousand small
 * files spent nine tenths of its time there. A mapped table is zeroed by
 * the kernel page by page as it is first written. Sanitizer builds map
 * them too (they test what ships, and ASan's poisoning and quarantine of
 * 2.8 MB a reader made the WTF fuzz targets three times slower); ASan does
 * not see a mapped table's bounds, so every index into one is checked
 * against the table's size where it is computed, as the readers do. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"

/* The length of the mapping (0: from calloc) is kept before the table; 64
 * bytes keep the table aligned for any element. */
#define TABLE_HEAD 64u
/* Tables smaller than this come from calloc. */
#define TABLE_MAP_MIN ((size_t)64 << 10)

void *atf_table_new(size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - TABLE_HEAD) / size)
        return NULL;
    size_t len = TABLE_HEAD + n * size;
    uint8_t *base;
    if (len >= TABLE_MAP_MIN) {
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        base = (uint8_t *)m;
    } else {
        base = (uint8_t *)calloc(1, len);
        if (!base)
            return NULL;
        len = 0;
    }
    memcpy(base, &len, sizeof len);
    return base + TABLE_HEAD;
}

void atf_table_free(void *table)
{
    if (!table)
        return;
    uint8_t *base = (uint8_t *)table - TABLE_HEAD;
    size_t len;
    memcpy(&len, base, sizeof len);
    if (len)
        munmap(base, len);
    else
        free(base);
}
