/* Target merge: the streaming cross-thread merge (atf_merge_*) and
 * `atf merge`, structure-aware.
 *
 * Input bytes drive a session writer: each event byte picks a thread and a
 * timestamp step (often zero, for ties; sometimes backwards, for threads
 * whose clock misbehaves). The session is written to tmpfs and read back.
 * Properties: the merge equals a reference merge (smallest (timestamp,
 * thread id, seq) of the thread heads, O(n*k)), is a permutation of every
 * thread's events in per-thread order, is sorted when every thread is, and
 * `atf merge --json` prints one line per event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/tools.h>

#include "fuzz_atf.h"

#define MAX_THREADS 8
#define MAX_EVENTS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    fz_stream in = { data, size, 0 };
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.layout = fz_bool(&p) ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    wo.checksum = fz_bool(&p);
    wo.buffer_size = 4096; /* small buffers keep executions fast */
    unsigned k = 1 + fz_u8(&p) % MAX_THREADS;
    uint64_t ids[MAX_THREADS], ts[MAX_THREADS], counts[MAX_THREADS] = { 0 };
    uint64_t id = fz_bool(&p) ? fz_u64(&p) % 1000 : 0;
    for (unsigned i = 0; i < k; i++) {
        ids[i] = id;
        id += 1 + fz_u8(&p) % 3;
        ts[i] = fz_bool(&p) ? fz_u64(&p) : fz_u8(&p);
    }
    /* Threads are added in a shuffled order: the reader sorts them. */
    unsigned order[MAX_THREADS];
    for (unsigned i = 0; i < k; i++)
        order[i] = i;
    for (unsigned i = k; i > 1; i--) {
        unsigned j = fz_u8(&p) % i, tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }

    const char *dir = fz_fresh_dir("merge");
    char sdir[700];
    snprintf(sdir, sizeof sdir, "%s/s", dir);
    atf_session_writer *sw;
    atf_error err;
    FZ_CHECK(atf_session_writer_create(&sw, sdir, &wo, &err) == ATF_OK, "session writer: %s", err.message);
    atf_thread_writer *tw[MAX_THREADS];
    for (unsigned i = 0; i < k; i++) {
        unsigned t = order[i];
        FZ_CHECK(atf_session_writer_add_thread(sw, ids[t], (uint32_t)(100 + t), 0, &tw[t], &err) == ATF_OK,
                 "add thread: %s", err.message);
    }
    for (unsigned e = 0; e < MAX_EVENTS && fz_stream_left(&in) > 0; e++) {
        uint8_t b = fz_next_u8(&in);
        unsigned t = b % k;
        uint8_t step = b >> 3;
        if (step >= 28)
            ts[t] -= ts[t] < step ? ts[t] : step; /* backwards */
        else if (step >= 8)
            ts[t] += step == 27 ? fz_next_u32(&in) : (uint32_t)(step - 8);
        atf_index_event ev = { 0 };
        ev.timestamp_ns = ts[t];
        ev.function_id = e;
        ev.event_kind = 1 + e % 3;
        ev.detail_seq = ATF_NO_DETAIL;
        if (wo.layout == ATF_LAYOUT_1) {
            ev.thread_id = 100 + t;
            ev.call_depth = e % 7;
        }
        FZ_CHECK(atf_thread_writer_append(tw[t], &ev, NULL, NULL) == ATF_OK, "append");
        counts[t]++;
    }
    FZ_CHECK(atf_session_writer_finalize(sw, 0, &err) == ATF_OK, "finalize: %s", err.message);
    atf_session_writer_close(sw);

    atf_session *s;
    FZ_CHECK(atf_session_open(&s, sdir, NULL, &err) == ATF_OK, "written session does not open: %s", err.message);
    FZ_CHECK(atf_session_thread_count(s) == k, "thread count");
    uint64_t total = 0;
    for (unsigned i = 0; i < k; i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        unsigned j = 0;
        while (ids[j] != t->id)
            j++;
        FZ_CHECK(atf_index_reader_count(t->index) == counts[j], "thread %llu count", (unsigned long long)t->id);
        total += counts[j];
    }
    FZ_CHECK(fz_check_merge(s) == total, "merge count");
    atf_session_close(s);

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    atf_tool_options to = ATF_TOOL_OPTIONS_INIT;
    to.json = 1;
    FZ_CHECK(out && atf_tool_merge(out, sdir, &to, &err) == ATF_OK, "atf merge");
    fclose(out);
    uint64_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    FZ_CHECK(lines == total, "atf merge printed %llu lines for %llu events", (unsigned long long)lines,
             (unsigned long long)total);
    free(buf);
    return 0;
}
