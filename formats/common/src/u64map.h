/* A map from 64-bit keys (function ids) to dense indexes 0, 1, 2, ... in the
 * order the keys were added: open addressing, linear probing, at most half
 * full. The caller keeps its entries in an array of its own at those
 * indexes, so an index stays valid when the map grows. Used by the tools'
 * tables of functions (export's interned names, report's statistics). */
#ifndef ATF_U64MAP_H
#define ATF_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct atf_u64map_slot {
    uint64_t key;
    uint32_t index1;   /* index + 1; 0: an empty slot */
} atf_u64map_slot;

typedef struct atf_u64map {
    atf_u64map_slot *slots;
    size_t cap;        /* 0 or a power of two */
    size_t count;      /* keys held: their indexes are 0 .. count - 1 */
} atf_u64map;

#define ATF_U64MAP_INIT { NULL, 0u, 0u }

/* The keys a map holds at the most (indexes fit in 32 bits). */
#define ATF_U64MAP_MAX (UINT32_MAX - 1u)

static inline size_t atf_u64map_home(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

/* The index of @key, or -1 when the map does not hold it. */
static inline int64_t atf_u64map_find(const atf_u64map *m, uint64_t key)
{
    if (!m->cap)
        return -1;
    for (size_t j = atf_u64map_home(key, m->cap);; j = (j + 1) & (m->cap - 1)) {
        const atf_u64map_slot *s = &m->slots[j];
        if (!s->index1)
            return -1;
        if (s->key == key)
            return (int64_t)s->index1 - 1;
    }
}

/* The index of @key, added if new: a new key gets index m->count (before
 * the call) and *added (NULL: not wanted) is set to 1, else 0. -1 when out
 * of memory or when the map holds ATF_U64MAP_MAX keys (the map is then
 * unchanged). */
int64_t atf_u64map_put(atf_u64map *m, uint64_t key, int *added);
/* Empties the map, keeping its memory. */
void atf_u64map_clear(atf_u64map *m);
/* Frees the map's memory; it is then empty and can be used again. */
void atf_u64map_free(atf_u64map *m);

#endif /* ATF_U64MAP_H */
