/* atf-prop-writer: writes a session with the codec's session writer from a
 * line-based description on stdin, for the property tests
 * (test_atf_properties.py), which generate the description, decode the files
 * with the independent Python implementation and compare.
 *
 *   session DIR LAYOUT ARCH OS CLOCK CHECKSUM BUFFER_SIZE
 *   symbol FUNCTION_ID MODULE_ID SYMBOL_INDEX NAME_HEX
 *   thread ID OS_THREAD_ID WITH_DETAIL
 *   event THREAD TS FUNCTION_ID KIND THREAD_ID CALL_DEPTH
 *   event THREAD TS FUNCTION_ID KIND THREAD_ID CALL_DEPTH TYPE FLAGS DTS DTHREAD_ID PAYLOAD_HEX|-
 *   end
 *
 * Numbers are decimal u64. An event with the detail fields gets a detail
 * event; the writer fills both links. Exit 0 when the session was written
 * and finalized, 1 with a message on the first error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>

#define MAX_THREADS 64

static int fail(const char *what, const char *line)
{
    fprintf(stderr, "atf-prop-writer: %s: %s", what, line);
    return 1;
}

static size_t unhex(const char *s, uint8_t *dst, size_t cap)
{
    size_t n = strlen(s) / 2;
    if (strcmp(s, "-") == 0)
        return 0;
    if (n > cap)
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return SIZE_MAX;
        dst[i] = (uint8_t)v;
    }
    return n;
}

int main(void)
{
    static char line[1 << 20], word[1 << 20];
    static uint8_t payload[1 << 19];
    atf_session_writer *sw = NULL;
    atf_thread_writer *tw[MAX_THREADS];
    uint64_t tids[MAX_THREADS];
    size_t nthreads = 0;
    atf_error err;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "session ", 8) == 0) {
            char dir[4096];
            unsigned layout, arch, os, clock, checksum;
            size_t buf;
            if (sscanf(line, "session %4095s %u %u %u %u %u %zu", dir, &layout, &arch, &os, &clock, &checksum, &buf) != 7)
                return fail("bad line", line);
            atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
            o.layout = (atf_layout)layout;
            o.arch = (uint8_t)arch;
            o.os = (uint8_t)os;
            o.clock_type = (uint8_t)clock;
            o.checksum = (uint8_t)checksum;
            o.buffer_size = buf;
            if (atf_session_writer_create(&sw, dir, &o, &err) != ATF_OK)
                return fail(err.message, line);
        } else if (strncmp(line, "symbol ", 7) == 0) {
            atf_manifest_symbol s;
            if (!sw || sscanf(line, "symbol %" SCNu64 " %" SCNu64 " %" SCNu64 " %s", &s.function_id, &s.module_id,
                              &s.symbol_index, word) != 4)
                return fail("bad line", line);
            size_t n = unhex(word, payload, sizeof payload - 1);
            if (n == SIZE_MAX)
                return fail("bad name", line);
            payload[n] = 0;
            s.name = (const char *)payload;
            if (atf_session_writer_add_symbol(sw, &s) != ATF_OK)
                return fail("add_symbol", line);
        } else if (strncmp(line, "thread ", 7) == 0) {
            uint64_t id;
            unsigned os_tid, with_detail;
            if (!sw || nthreads == MAX_THREADS ||
                sscanf(line, "thread %" SCNu64 " %u %u", &id, &os_tid, &with_detail) != 3)
                return fail("bad line", line);
            if (atf_session_writer_add_thread(sw, id, os_tid, (int)with_detail, &tw[nthreads], &err) != ATF_OK)
                return fail(err.message, line);
            tids[nthreads++] = id;
        } else if (strncmp(line, "event ", 6) == 0) {
            uint64_t tid, ts, fid, kind, etid, depth, type, flags, dts, dtid;
            atf_index_event ev = { 0 };
            atf_detail_event de = { 0 };
            int k = sscanf(line,
                           "event %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                           " %" SCNu64 " %" SCNu64 " %" SCNu64 " %s",
                           &tid, &ts, &fid, &kind, &etid, &depth, &type, &flags, &dts, &dtid, word);
            if (!sw || (k != 6 && k != 11))
                return fail("bad line", line);
            size_t t = 0;
            while (t < nthreads && tids[t] != tid)
                t++;
            if (t == nthreads)
                return fail("unknown thread", line);
            ev.timestamp_ns = ts;
            ev.function_id = fid;
            ev.event_kind = (uint32_t)kind;
            ev.thread_id = (uint32_t)etid;
            ev.call_depth = (uint32_t)depth;
            ev.detail_seq = ATF_NO_DETAIL;
            if (k == 11) {
                size_t n = unhex(word, payload, sizeof payload);
                if (n == SIZE_MAX)
                    return fail("bad payload", line);
                de.event_type = (uint16_t)type;
                de.flags = (uint16_t)flags;
                de.timestamp = dts;
                de.thread_id = (uint32_t)dtid;
                de.payload = n ? payload : NULL;
                de.payload_size = (uint32_t)n;
            }
            atf_status st = atf_thread_writer_append(tw[t], &ev, k == 11 ? &de : NULL, NULL);
            if (st != ATF_OK)
                return fail(atf_strerror(st), line);
        } else if (strcmp(line, "end\n") == 0) {
            break;
        } else {
            return fail("unknown line", line);
        }
    }
    if (!sw)
        return fail("no session line", "\n");
    atf_status st = atf_session_writer_finalize(sw, 0, &err);
    atf_session_writer_close(sw);
    if (st != ATF_OK)
        return fail(err.message, "finalize\n");
    return 0;
}
