/* Durability (rec_sync.c): the periodic sync thread and the final sync. */
#ifndef ATF_REC_SYNC_H
#define ATF_REC_SYNC_H

#include <atf/recorder.h>

/* Durability (rec_sync.c). start: the sync thread of the periodic policy
 * (-1 if it cannot start); stop: ends it (before the writers stop);
 * final: the sync at the end of stop() (opts.sync), which makes the
 * finalized session's files and directory entries durable. */
int rec_sync_start(atf_recorder *r);
void rec_sync_stop(atf_recorder *r);
void rec_sync_destroy(atf_recorder *r);
atf_status rec_sync_final(atf_recorder *r, atf_error *err);

#endif /* ATF_REC_SYNC_H */
