/* atf-record-demo: a small multithreaded program instrumented with the
 * recorder, the way a tracer would use it. Each worker thread walks a call
 * tree (calls, returns, now and then an exception event); every
 * call and return also offers an ARM64 function payload to the detail lane,
 * which keeps them in pre-roll memory until the main thread triggers detail
 * recording ("something interesting happened") and stops it again, with a
 * post-roll. The main thread registers a module and symbols, and timing
 * anchors for media correlation. At the end it prints the recorder's
 * counters; the session (manifest.json, thread_K/) is in DIR, which must not
 * exist yet, and `atf validate DIR` accepts it. (A tracer would rather set
 * options.root and get ROOT/session_YYYYMMDD_HHMMSS/pid_N/.)
 *
 *   atf-record-demo [--threads N] [--events N] [--layout 1|2] DIR
 *
 * Events per thread: N (default 1000000). Exit status 0 when every event was
 * recorded and nothing was lost, 1 otherwise, 2 on usage errors. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atf/recorder.h>

#define FUNCTIONS 24u
#define MAX_DEPTH 12u

static const char *const names[FUNCTIONS] = {
    "main",          "decode_frame",  "parse_header",  "read_bits",     "huffman_decode", "idct_8x8",
    "dequantize",    "motion_comp",   "copy_block",    "filter_edges",  "deblock_luma",   "deblock_chroma",
    "render",        "upload_texture","present",       "audio_mix",     "resample",       "apply_gain",
    "queue_buffer",  "wait_vsync",    "poll_input",    "handle_event",  "alloc_pool",     "free_pool",
};

typedef struct worker {
    atf_recorder *r;
    uint64_t events, recorded, refused;
    uint32_t seed;
} worker;

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* One event, with a detail payload when the recorder wants payloads. */
static atf_status emit(atf_recorder *r, uint32_t kind, uint64_t fid, uint64_t arg, uint8_t *stack)
{
    if (!atf_recorder_detail_capturing(r))
        return atf_recorder_event(r, kind, fid);
    atf_arm64_payload p;
    memset(&p, 0, sizeof p);
    p.function_id = fid;
    for (unsigned i = 0; i < 8; i++)
        p.x[i] = arg + i;
    p.lr = 0x100000u + fid * 0x40u;
    p.fp = 0x7ffff000u - (uint64_t)kind * 16u;
    p.sp = p.fp - 64u;
    p.stack_size = 32;
    p.stack = stack;
    return atf_recorder_event_arm64(r, kind, &p);
}

static void *work(void *arg)
{
    worker *w = arg;
    uint64_t stack_fid[MAX_DEPTH];
    unsigned depth = 0;
    uint8_t stack_bytes[32];
    memset(stack_bytes, 0xA5, sizeof stack_bytes);
    for (uint64_t i = 0; i < w->events; i++) {
        uint32_t x = next_rand(&w->seed);
        uint32_t kind;
        uint64_t fid;
        if (depth > 0 && (x & 0xFF0u) == 0) {
            fid = stack_fid[depth - 1];      /* thrown in the current function */
            kind = ATF_EVENT_EXCEPTION;
        } else if (depth == 0 || (depth < MAX_DEPTH && (x & 3u) != 0 && i + depth + 1 < w->events)) {
            fid = depth == 0 ? 0 : 1u + x % (FUNCTIONS - 1u);
            stack_fid[depth++] = fid;
            kind = ATF_EVENT_CALL;
        } else {
            fid = stack_fid[--depth];
            kind = ATF_EVENT_RETURN;
        }
        atf_status st = emit(w->r, kind, fid, i, stack_bytes);
        if (st == ATF_OK)
            w->recorded++;
        else
            w->refused++;
    }
    return NULL;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };
    nanosleep(&ts, NULL);
}

static int usage(void)
{
    fprintf(stderr, "usage: atf-record-demo [--threads N] [--events N] [--layout 1|2] DIR\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned threads = 4;
    uint64_t events = 1000000;
    int layout = 2;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc)
            events = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--layout") && i + 1 < argc)
            layout = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return usage();
    }
    if (!dir || threads == 0 || threads > 64 || events == 0 || (layout != 1 && layout != 2))
        return usage();

    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.session_dir = dir;
    o.layout = layout == 1 ? ATF_LAYOUT_1 : ATF_LAYOUT_2;
    o.detail = 1;
    o.pre_roll_ns = 2000000;    /* 2 ms of payloads kept before a trigger */
    o.post_roll_ns = 1000000;   /* 1 ms recorded after the window closes */
    atf_recorder *r;
    atf_error err;
    if (atf_recorder_start(&r, &o, &err) != ATF_OK) {
        fprintf(stderr, "atf-record-demo: %s%s%s\n", err.file, err.file[0] ? ": " : "", err.message);
        return 1;
    }
    atf_manifest_module m = { 1, 0x100000u, 0x10000u, "/usr/bin/atf-record-demo", "" };
    atf_recorder_add_module(r, &m);
    for (uint64_t f = 0; f < FUNCTIONS; f++) {
        atf_manifest_symbol s = { f, 1, f, names[f] };
        atf_recorder_add_symbol(r, &s);
    }
    atf_recorder_add_anchor(r, 0, 0, 90000);   /* media time 0 (90 kHz clock) is now */

    worker *w = calloc(threads, sizeof *w);
    pthread_t *th = calloc(threads, sizeof *th);
    if (!w || !th)
        return 1;
    for (unsigned i = 0; i < threads; i++) {
        w[i] = (worker){ r, events, 0, 0, 0x9E3779B9u * (i + 1u) };
        pthread_create(&th[i], NULL, work, &w[i]);
    }
    /* The "interesting moments": two detail windows while the workers run. */
    for (int k = 0; k < 2; k++) {
        sleep_ms(5);
        atf_recorder_detail_enable(r, NULL);
        sleep_ms(2);
        atf_recorder_detail_disable(r, NULL);
        atf_recorder_add_anchor(r, 0, (int64_t)(k + 1) * 9000, 90000);
    }
    for (unsigned i = 0; i < threads; i++)
        pthread_join(th[i], NULL);

    atf_status st = atf_recorder_stop(r, &err);
    atf_recorder_stats s;
    atf_recorder_get_stats(r, &s);
    uint64_t recorded = 0, refused = 0;
    for (unsigned i = 0; i < threads; i++) {
        recorded += w[i].recorded;
        refused += w[i].refused;
    }
    printf("session:        %s\n", atf_recorder_session_dir(r));
    printf("threads:        %" PRIu64 "\n", s.threads);
    printf("index events:   %" PRIu64 " recorded, %" PRIu64 " written, %" PRIu64 " lost\n", s.events_recorded,
           s.events_written, s.events_dropped);
    printf("detail events:  %" PRIu64 " offered, %" PRIu64 " written (detail windows with pre-/post-roll), "
           "%" PRIu64 " dropped, %" PRIu64 " links patched\n",
           s.detail_recorded, s.detail_written, s.detail_dropped, s.detail_links_patched);
    printf("backpressure:   %" PRIu64 " waits\n", s.backpressure_waits);
    if (st != ATF_OK)
        fprintf(stderr, "atf-record-demo: stop: %s: %s\n", atf_strerror(st), err.message);
    int ok = st == ATF_OK && refused == 0 && recorded == (uint64_t)threads * events && s.events_dropped == 0 &&
             s.events_written == recorded;
    atf_recorder_destroy(r);
    free(w);
    free(th);
    return ok ? 0 : 1;
}
