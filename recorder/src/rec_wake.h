/* Sleeping and waking on a 32-bit word (rec_wake.c): a futex on Linux,
 * a short sleep elsewhere. Producers sleep on their ring's space_seq,
 * writers on their wake_seq. */
#ifndef ATF_REC_WAKE_H
#define ATF_REC_WAKE_H

#include <stdatomic.h>
#include <stdint.h>

void rec_wait32(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns);
void rec_wake32(_Atomic uint32_t *addr);

#endif /* ATF_REC_WAKE_H */
