/* broken_adapter: a writer-kit adapter that is wrong on purpose, to check
 * that the kit catches each kind of writer bug with the right clause IDs.
 *
 *     broken_adapter MODE SCENARIO_FILE OUTPUT_DIR
 *     ATF_BROKEN_MODE=MODE broken_adapter SCENARIO_FILE OUTPUT_DIR
 *
 * It writes the session correctly with atf_session_writer, then breaks it:
 *
 *   drop-footer      every index.atf loses its footer and keeps the
 *                    placeholder header, as if finalize never ran
 *                    (REC-001: crash-truncated output from an adapter that
 *                    reported success)
 *   miscount-footer  every index footer's event_count is one less than the
 *                    events written (one more when there are none)
 *                    (IDX-HDR-012 and the IDX-FTR- rules)
 *   break-backlink   the first detail event of every detail file links back
 *                    to the next index event; the detail checksum is
 *                    recomputed so that only the link is wrong (LINK-002/004)
 *   lose-last        the last event of every thread is never written: the
 *                    files are consistent, only the kit's comparison sees it
 *                    (KIT-IDX-001)
 *   wrong-kind       the first event of every thread has event_kind 2
 *                    instead of 1 (or 1 instead of 2 or 3): valid files, wrong
 *                    content (KIT-IDX-002)
 *   wrong-payload    byte 8 of the first payload of every thread is flipped
 *                    (KIT-DET-003)
 *   wrong-clock      every index header says a different clock_type
 *                    (KIT-HDR-001)
 *   drop-symbol      the first symbol is not written (KIT-SES-002)
 *   nothing          exit 0 without writing anything (KIT-SES-001)
 *   garbage          manifest.json and every thread file are random bytes
 *                    (KIT-SES-001, KIT-IDX-001 and whatever the validator finds)
 *   crash            raise(SIGSEGV) before writing anything (KIT-RUN-001)
 *   hang             sleep until killed (KIT-RUN-001, timed out)
 *   fail             print a message and exit 3 (KIT-RUN-001)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/conform.h>
#include <atf/crc32c.h>
#include <atf/session.h>

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Whole-file read and write (the files here are small test outputs). */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return NULL;
    }
    *n = (size_t)st.st_size;
    uint8_t *b = malloc(*n ? *n : 1);
    if (b && fread(b, 1, *n, f) != *n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static int spill(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int break_index(const char *path, const char *mode, unsigned layout)
{
    size_t n;
    uint8_t *b = slurp(path, &n);
    if (!b || n < 128)
        return free(b), -1;
    size_t ftr = n - 64;
    if (!strcmp(mode, "drop-footer")) {
        /* Placeholder header: event_count, footer_offset, times 0; no footer. */
        if (layout == 1)
            put_le(b + 28, 0, 4);
        else
            put_le(b + 24, 0, 8);
        put_le(b + 40, 0, 8);
        put_le(b + 48, 0, 8);
        put_le(b + 56, 0, 8);
        n = ftr;
    } else { /* miscount-footer */
        uint64_t c = get_le(b + ftr + 8, 8);
        put_le(b + ftr + 8, c ? c - 1 : 1, 8);
    }
    int rc = spill(path, b, n);
    free(b);
    return rc;
}

static int break_backlink(const char *path, unsigned layout)
{
    size_t n;
    uint8_t *b = slurp(path, &n);
    if (!b)
        return -1;
    int rc = 0;
    if (n >= 64 + 24 + 64 && get_le(b + 28, 8) > 0) { /* header event_count */
        uint64_t seq = get_le(b + 64 + 8, layout == 1 ? 4 : 8);
        put_le(b + 64 + 8, seq + 1, layout == 1 ? 4 : 8);
        uint8_t *ftr = b + n - 64;
        if (get_le(ftr + 4, 4) != 0)
            put_le(ftr + 4, atf_crc32c(0, b + 64, n - 128), 4);
        rc = spill(path, b, n);
    }
    free(b);
    return rc;
}

/* @n deterministic pseudo-random bytes (seeded), replacing the file. */
static int write_garbage(const char *path, size_t n, uint64_t seed)
{
    uint8_t *b = malloc(n);
    if (!b)
        return -1;
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (uint8_t)x;
    }
    int rc = spill(path, b, n);
    free(b);
    return rc;
}

/* The mode (argv[1] or $ATF_BROKEN_MODE) and where SCENARIO_FILE is in argv.
 * @return 0, or 2 (usage). */
static int parse_args(int argc, char **argv, const char **mode, int *a)
{
    *mode = getenv("ATF_BROKEN_MODE");
    *a = 1;
    if (argc == 4) {
        *mode = argv[1];
        *a = 2;
    } else if (argc != 3 || !*mode) {
        fprintf(stderr, "usage: broken_adapter MODE SCENARIO_FILE OUTPUT_DIR\n"
                        "   or: ATF_BROKEN_MODE=MODE broken_adapter SCENARIO_FILE OUTPUT_DIR\n"
                        "modes: drop-footer miscount-footer break-backlink lose-last wrong-kind wrong-payload\n"
                        "       wrong-clock drop-symbol nothing garbage crash hang fail\n");
        return 2;
    }
    static const char *const modes[] = { "drop-footer", "miscount-footer", "break-backlink", "lose-last",
                                         "wrong-kind", "wrong-payload", "wrong-clock", "drop-symbol",
                                         "nothing", "garbage", "crash", "hang", "fail" };
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        known |= !strcmp(*mode, modes[i]);
    if (!known) {
        fprintf(stderr, "broken_adapter: unknown mode '%s'\n", *mode);
        return 2;
    }
    return 0;
}

/* The modes that write no session: their exit status, or -1 for the others. */
static int misbehave(const char *mode)
{
    if (!strcmp(mode, "crash")) {
        fprintf(stderr, "broken_adapter: crashing on purpose\n");
        fflush(stderr);
        signal(SIGSEGV, SIG_DFL);   /* die of the signal even under a sanitizer's handler */
        raise(SIGSEGV);
        return 99;
    }
    if (!strcmp(mode, "hang")) {
        for (;;)
            pause();
    }
    if (!strcmp(mode, "nothing"))
        return 0;
    if (!strcmp(mode, "fail")) {
        fprintf(stderr, "broken_adapter: failing on purpose\n");
        return 3;
    }
    return -1;
}

/* Appends the scenario's events to the thread writers tw[], spoiling them as
 * the mode says (total[]: events per thread, for lose-last). */
static int copy_events(const char *mode, atf_scenario_reader *sr, atf_thread_writer **tw, const uint64_t *total,
                       uint64_t *seen, uint8_t **payload_flipped)
{
    atf_error err;
    atf_scenario_event ev;
    while (atf_scenario_next(sr, &ev, &err) == 1) {
        if (!strcmp(mode, "lose-last") && seen[ev.thread_index] + 1 == total[ev.thread_index])
            continue;
        atf_index_event ie = { ev.timestamp_ns, ev.function_id, ATF_NO_DETAIL, ev.event_kind, ev.thread_id,
                               ev.call_depth, 0 };
        atf_detail_event de = { 0, ev.event_type, ev.flags, 0, ev.thread_id, ev.timestamp, ev.payload,
                                ev.payload_size };
        int first = seen[ev.thread_index]++ == 0;
        if (!strcmp(mode, "wrong-kind") && first)
            ie.event_kind = ie.event_kind == 1 ? 2 : 1;
        if (!strcmp(mode, "wrong-payload") && ev.has_detail && !payload_flipped[ev.thread_index] &&
            ev.payload_size >= 9) {
            /* byte 8: in x0 of an arm64 payload (still well formed), opaque bytes otherwise */
            uint8_t *copy = malloc(ev.payload_size);
            if (!copy)
                return 1;
            memcpy(copy, ev.payload, ev.payload_size);
            copy[8] ^= 0x5a;
            de.payload = copy;
            payload_flipped[ev.thread_index] = copy;
        }
        if (atf_thread_writer_append(tw[ev.thread_index], &ie, ev.has_detail ? &de : NULL, NULL))
            return 1;
    }
    return 0;
}

/* Writes the scenario's session into outdir with this project's writer,
 * spoiled as the mode says; *srp is left open on the scenario (its info).
 * @return 0, or 1. */
static int write_session(const char *mode, const char *scen, const char *outdir, atf_scenario_reader **srp)
{
    atf_error err;
    atf_scenario_reader *sr = NULL;
    if (atf_scenario_open(&sr, scen, &err)) {
        fprintf(stderr, "broken_adapter: %s\n", err.message);
        return 1;
    }
    *srp = sr;
    const atf_scenario_info *info = atf_scenario_reader_info(sr);
    size_t T = info->thread_count;
    uint64_t *total = calloc(T ? T : 1, sizeof *total), *seen = calloc(T ? T : 1, sizeof *seen);
    atf_thread_writer **tw = calloc(T ? T : 1, sizeof *tw);
    uint8_t **payload_flipped = calloc(T ? T : 1, sizeof *payload_flipped);
    if (!total || !seen || !tw || !payload_flipped)
        return 1;
    atf_scenario_event ev;
    if (!strcmp(mode, "lose-last")) {
        /* First pass: events per thread, to know which is the last one. */
        while (atf_scenario_next(sr, &ev, &err) == 1)
            total[ev.thread_index]++;
        atf_scenario_close(sr);
        *srp = NULL;
        if (atf_scenario_open(&sr, scen, &err))
            return 1;
        *srp = sr;
        info = atf_scenario_reader_info(sr);
    }
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.layout = (atf_layout)info->layout;
    o.arch = (uint8_t)info->arch;
    o.os = (uint8_t)info->os;
    o.clock_type = (uint8_t)info->clock_type;
    if (!strcmp(mode, "wrong-clock"))
        o.clock_type = (uint8_t)(info->clock_type % 3 + 1);
    o.buffer_size = 16u * 1024u;
    atf_session_writer *sw;
    if (atf_session_writer_create(&sw, outdir, &o, &err))
        return 1;
    for (size_t i = !strcmp(mode, "drop-symbol") ? 1 : 0; i < info->symbol_count; i++) {
        atf_manifest_symbol ms = { info->symbols[i].function_id, info->symbols[i].function_id >> 32,
                                   info->symbols[i].function_id & 0xffffffffu, info->symbols[i].name };
        atf_session_writer_add_symbol(sw, &ms);
    }
    for (size_t i = 0; i < T; i++)
        if (atf_session_writer_add_thread(sw, info->threads[i].id, info->threads[i].os_thread_id,
                                          info->threads[i].detail, &tw[i], &err))
            return 1;
    if (copy_events(mode, sr, tw, total, seen, payload_flipped))
        return 1;
    if (atf_session_writer_finalize(sw, 0, &err) || atf_session_writer_close(sw))
        return 1;
    for (size_t i = 0; i < T; i++)
        free(payload_flipped[i]);
    free(payload_flipped);
    free(total);
    free(seen);
    free(tw);
    return 0;
}

/* Breaks what was written, as the mode says. @return 0, or -1 (errno). */
static int break_session(const char *mode, const char *outdir, const atf_scenario_info *info)
{
    int rc = 0;
    for (size_t i = 0; i < info->thread_count && rc == 0; i++) {
        char path[4096];
        if (!strcmp(mode, "drop-footer") || !strcmp(mode, "miscount-footer")) {
            snprintf(path, sizeof path, "%s/thread_%" PRIu64 "/index.atf", outdir, info->threads[i].id);
            rc = break_index(path, mode, info->layout);
        } else if (!strcmp(mode, "garbage")) {
            static const char *const names[] = { "index.atf", "detail.atf" };
            for (int k = 0; k < 2 && rc == 0; k++) {
                snprintf(path, sizeof path, "%s/thread_%" PRIu64 "/%s", outdir, info->threads[i].id, names[k]);
                if (k == 1 && !info->threads[i].detail)
                    continue;
                rc = write_garbage(path, 100 + 37 * i + (size_t)k, (uint64_t)i * 2 + (uint64_t)k);
            }
            if (i == 0 && rc == 0) {
                snprintf(path, sizeof path, "%s/manifest.json", outdir);
                rc = write_garbage(path, 300, 99);
            }
        } else if (!strcmp(mode, "break-backlink") && info->threads[i].detail) {
            snprintf(path, sizeof path, "%s/thread_%" PRIu64 "/detail.atf", outdir, info->threads[i].id);
            rc = break_backlink(path, info->layout);
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *mode;
    int a;
    int rc = parse_args(argc, argv, &mode, &a);
    if (rc)
        return rc;
    rc = misbehave(mode);
    if (rc >= 0)
        return rc;
    const char *scen = argv[a], *outdir = argv[a + 1];
    atf_scenario_reader *sr = NULL;
    if (write_session(mode, scen, outdir, &sr))
        return 1;
    rc = break_session(mode, outdir, atf_scenario_reader_info(sr));
    atf_scenario_close(sr);
    if (rc)
        fprintf(stderr, "broken_adapter: cannot rewrite the session: %s\n", strerror(errno));
    return rc ? 1 : 0;
}
