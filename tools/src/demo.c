/* A deterministic synthetic session, for the quick start and for tests. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <atf/tools.h>

#include "internal.h"

static uint64_t next_rand(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

atf_status atf_tool_demo(const char *dir, const atf_demo_options *opts, atf_error *err)
{
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    if (opts)
        d = *opts;
    if (!dir || d.threads == 0 || (d.layout != ATF_LAYOUT_1 && d.layout != ATF_LAYOUT_2))
        return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "demo: bad options");
    struct stat sb;
    if (!d.force && stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL, "demo: %s exists and is not a directory", dir);
        DIR *dp = opendir(dir);
        if (!dp)
            return atf_fail(err, errno == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, ATF_NO_OFFSET, NULL, "demo: %s: %s", dir,
                            strerror(errno));
        struct dirent *e;
        int empty = 1;
        while (empty && (e = readdir(dp)) != NULL)
            empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        closedir(dp);
        if (!empty)
            return atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL,
                            "demo: %s is not empty: a session written there would mix with what it holds "
                            "(give an empty or new directory, or --force)", dir);
    }
    atf_writer_options wo = ATF_WRITER_OPTIONS_INIT;
    wo.layout = d.layout;
    wo.arch = ATF_ARCH_ARM64; /* the payloads below are ARM64 function payloads */
    atf_session_writer *sw;
    atf_status st = atf_session_writer_create(&sw, dir, &wo, err);
    if (st)
        return st;
    static const char *const names[] = { "main", "parse_args", "open_session", "record_event",
                                         "flush_ring", "write_block", "compute_crc", "finalize" };
    for (unsigned i = 0; i < 8 && !st; i++) {
        atf_manifest_symbol sym = { (uint64_t)i, 0, i, names[i] };
        st = atf_session_writer_add_symbol(sw, &sym);
    }
    atf_manifest_module mod = { 0, 0x100000000ull, 0x10000, "/usr/bin/atf-demo", "00000000-0000-0000-0000-000000000000" };
    if (!st)
        st = atf_session_writer_add_module(sw, &mod);
    atf_timing_anchor anchor = { 1000000000ull, 0, 48000 };
    if (!st)
        st = atf_session_writer_add_anchor(sw, &anchor);
    uint64_t rng = d.seed * 0x9E3779B97F4A7C15ull + 1;
    for (unsigned t = 0; t < d.threads && !st; t++) {
        atf_thread_writer *tw;
        st = atf_session_writer_add_thread(sw, t, 1000 + t, d.detail_every != 0, &tw, err);
        uint64_t ts = 1000000000ull + t * 7, stack_fn[64];
        uint32_t depth = 0;
        for (uint64_t i = 0; i < d.events && !st; i++) {
            atf_index_event ev = { 0 };
            uint64_t r = next_rand(&rng);
            ts += 10 + r % 90;
            if (depth > 0 && (depth >= 60 || r % 2)) {
                ev.event_kind = (r >> 8) % 50 == 0 ? ATF_EVENT_EXCEPTION : ATF_EVENT_RETURN;
                ev.function_id = stack_fn[--depth];
            } else {
                ev.event_kind = ATF_EVENT_CALL;
                ev.function_id = (r >> 16) % 8;
                stack_fn[depth++] = ev.function_id;
            }
            ev.timestamp_ns = ts;
            ev.thread_id = 1000 + t;
            ev.call_depth = depth;
            uint8_t payload[ATF_ARM64_PAYLOAD_FIXED_SIZE + 128], stack[128];
            atf_detail_event de = { 0 };
            int with_detail = d.detail_every && i % d.detail_every == 0;
            if (with_detail) {
                atf_arm64_payload a = { 0 };
                a.function_id = ev.function_id;
                for (int k = 0; k < 8; k++)
                    a.x[k] = next_rand(&rng);
                a.lr = 0x100000000ull + (r & 0xffff);
                a.fp = 0x7ff000000000ull - depth * 64;
                a.sp = a.fp - 128;
                a.stack_size = (uint16_t)(r % 2 ? 128 : 0);
                for (int k = 0; k < 128; k++)
                    stack[k] = (uint8_t)next_rand(&rng);
                a.stack = stack;
                de.payload_size = (uint32_t)atf_arm64_payload_encode(payload, sizeof payload, &a);
                de.payload = payload;
                de.event_type = ev.event_kind == ATF_EVENT_CALL ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN;
                de.thread_id = ev.thread_id;
                de.timestamp = ts;
            }
            st = atf_thread_writer_append(tw, &ev, with_detail ? &de : NULL, NULL);
            if (st)
                atf_fail(err, st, ATF_NO_OFFSET, NULL, "demo: cannot append event %llu", (unsigned long long)i);
        }
    }
    atf_status fs = atf_session_writer_finalize(sw, 0, st ? NULL : err);
    atf_session_writer_close(sw);
    return st ? st : fs;
}
