/* A map from 64-bit keys to dense indexes (u64map.h). */
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

static int grow(atf_u64map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    atf_u64map_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].index1)
            continue;
        size_t j = atf_u64map_home(m->slots[i].key, ncap);
        while (ns[j].index1)
            j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

int64_t atf_u64map_put(atf_u64map *m, uint64_t key, int *added)
{
    if (added)
        *added = 0;
    int64_t found = atf_u64map_find(m, key);
    if (found >= 0)
        return found;
    if (m->count >= ATF_U64MAP_MAX || ((m->count + 1) * 2 > m->cap && grow(m) != 0))
        return -1;
    size_t j = atf_u64map_home(key, m->cap);
    while (m->slots[j].index1)
        j = (j + 1) & (m->cap - 1);
    m->slots[j] = (atf_u64map_slot){ key, (uint32_t)(m->count + 1) };
    if (added)
        *added = 1;
    return (int64_t)m->count++;
}

void atf_u64map_clear(atf_u64map *m)
{
    if (m->slots)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->count = 0;
}

void atf_u64map_free(atf_u64map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}
