/* The producer side (rec_producer.c): the public recording functions,
 * registration of a thread on its first event, backpressure, thread exit. */
#ifndef ATF_REC_PRODUCER_H
#define ATF_REC_PRODUCER_H

#include <atf/recorder.h>

/* Publishes the calling thread's events of r (flush, stop). */
void rec_producer_publish_self(atf_recorder *r);
/* In a forked child: forget the parent's registrations of this thread. */
void rec_producer_fork_child(void);

#endif /* ATF_REC_PRODUCER_H */
