/* The session writer run the power-cut harness records: two threads (one
 * with a detail lane), events written in rounds with the manifest rewritten
 * between them, then atf_session_writer_finalize(sync = 1), after which the
 * whole session is reported durable ("durable all" through atf_plog_note).
 * Usage: pl_session DIR [EVENTS] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pl_session DIR [EVENTS]\n");
        return 2;
    }
    unsigned events = argc > 2 ? (unsigned)atoi(argv[2]) : 400;
    void (*note)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "atf_plog_note");
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    atf_session_writer *sw;
    atf_error err;
    if (atf_session_writer_create(&sw, argv[1], &wo, &err) != ATF_OK) {
        fprintf(stderr, "pl_session: %s\n", err.message);
        return 2;
    }
    atf_thread_writer *tw[2];
    for (unsigned t = 0; t < 2; t++)
        if (atf_session_writer_add_thread(sw, t, 100 + t, t == 0, &tw[t], &err) != ATF_OK) {
            fprintf(stderr, "pl_session: %s\n", err.message);
            return 2;
        }
    uint64_t ts = 1000;
    uint8_t payload[40];
    for (unsigned round = 0; round < 4; round++) {
        for (unsigned i = 0; i < events / 4; i++) {
            for (unsigned t = 0; t < 2; t++) {
                atf_index_event ev = { 0 };
                ev.timestamp_ns = ts += 7;
                ev.function_id = (uint64_t)t << 32 | (round * (events / 4) + i);
                ev.event_kind = i % 2 ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
                ev.thread_id = 100 + t;
                atf_detail_event de = { 0 };
                int with = t == 0 && i % 4 == 0;
                if (with) {
                    memset(payload, (int)i, sizeof payload);
                    de.event_type = 1000;
                    de.thread_id = 100;
                    de.timestamp = ev.timestamp_ns;
                    de.payload = payload;
                    de.payload_size = sizeof payload;
                }
                if (atf_thread_writer_append(tw[t], &ev, with ? &de : NULL, NULL) != ATF_OK) {
                    fprintf(stderr, "pl_session: append failed\n");
                    return 2;
                }
            }
        }
        char name[32];
        snprintf(name, sizeof name, "round_%u", round);
        atf_manifest_symbol sym = { (uint64_t)round, 0, round, name };
        atf_session_writer_add_symbol(sw, &sym);
        if (atf_session_writer_write_manifest(sw, &err) != ATF_OK) {
            fprintf(stderr, "pl_session: manifest: %s\n", err.message);
            return 2;
        }
    }
    if (atf_session_writer_finalize(sw, 1, &err) != ATF_OK) {
        fprintf(stderr, "pl_session: finalize: %s\n", err.message);
        return 2;
    }
    if (note)
        note("durable all");
    atf_session_writer_close(sw);
    return 0;
}
