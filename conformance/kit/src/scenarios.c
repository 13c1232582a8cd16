/* The built-in scenarios of the writer kit. Each one is generated from a
 * fixed seed (its name): the same kit version always writes the same bytes.
 * The table below is the list documented in conformance/kit/README.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/conform.h>
#include <atf/format.h>

#include "internal.h"   /* the codec's: atf_make_dirs */
#include "kit_internal.h"

/* ---- Generator state ---------------------------------------------------- */

typedef struct frame_stack {
    uint64_t *fid;
    uint32_t depth, cap;
} frame_stack;

typedef struct gen {
    FILE *out;
    uint64_t rng;
    atf_scenario_info info;
    atf_scenario_thread threads[256];
    atf_scenario_symbol symbols[64];
    char symbol_names[64][48];
    frame_stack stack[256];
    uint64_t ts;                 /* global clock (every thread reads it) */
    uint64_t planned, emitted;
    unsigned arch;               /* the variant's arch: overrides what the generator's platform() says */
    uint8_t payload[4u << 20];
    atf_status status;
} gen;

static uint64_t next(gen *g)
{
    /* splitmix64 */
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(gen *g, uint64_t n)
{
    return n ? next(g) % n : 0;
}

static const uint64_t EXTREMES[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, (1ull << 63) - 1,
                                     UINT32_MAX, 1ull << 32 };
#define N_EXTREMES (sizeof EXTREMES / sizeof EXTREMES[0])

static void add_thread(gen *g, uint64_t id, uint32_t os_tid, int detail)
{
    size_t i = g->info.thread_count++;
    g->threads[i] = (atf_scenario_thread){ id, os_tid, detail };
}

static void platform(gen *g, unsigned arch, unsigned os, unsigned clock)
{
    g->info.arch = g->arch ? g->arch : arch;
    g->info.os = os;
    g->info.clock_type = clock;
}

static void begin(gen *g)
{
    g->info.threads = g->threads;
    g->info.symbols = g->symbols;
    g->info.event_count = g->planned;
    for (size_t i = 0; i < g->info.thread_count; i++) {
        g->stack[i].cap = 64;
        g->stack[i].fid = malloc(64 * sizeof(uint64_t));
        if (!g->stack[i].fid)
            g->status = ATF_E_NOMEM;
    }
    if (!g->status)
        g->status = atf_scenario_write_header(g->out, &g->info);
}

/* A function id from a pool of `module << 32 | symbol` values (or the symbols). */
static uint64_t pick_function(gen *g)
{
    if (g->info.symbol_count)
        return g->symbols[below(g, g->info.symbol_count)].function_id;
    return (below(g, 6) << 32) | below(g, 4096);
}

/* Payload kinds. */
enum { PAY_NONE, PAY_ARM64_RANDOM, PAY_ARM64_STACK, PAY_OPAQUE };

typedef struct payload_policy {
    int kind;
    unsigned stack_size;     /* PAY_ARM64_STACK: fixed; PAY_ARM64_RANDOM: maximum */
    unsigned opaque_max;     /* PAY_OPAQUE: maximum size */
    int extreme_regs;
} payload_policy;

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* n pseudo-random bytes at the start of g->payload. */
static void random_payload(gen *g, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 8) {
        uint64_t r = next(g);
        for (uint32_t k = 0; k < 8 && i + k < n; k++)
            g->payload[i + k] = (uint8_t)(r >> (8 * k));
    }
}

static uint32_t make_payload(gen *g, const payload_policy *pp, uint64_t fid, uint32_t forced_size)
{
    if (pp->kind == PAY_OPAQUE) {
        /* One in 16 empty: a detail event with a 0-byte payload is still a detail event. */
        uint32_t n = forced_size != UINT32_MAX ? forced_size
                   : below(g, 16) == 0 ? 0 : (uint32_t)below(g, (uint64_t)pp->opaque_max + 1);
        if (n > sizeof g->payload)
            n = sizeof g->payload;
        random_payload(g, n);
        return n;
    }
    unsigned ss = pp->kind == PAY_ARM64_STACK ? pp->stack_size : (unsigned)below(g, (uint64_t)pp->stack_size + 1);
    if (forced_size != UINT32_MAX)
        ss = forced_size;
    if (g->info.arch != ATF_ARCH_ARM64) {
        /* The x86_64 variant of a scenario written for arm64: x86_64 payloads
         * are opaque bytes (SPEC 3.4, errata E-9); the same sizes as the arm64
         * payloads would have (100 + stack), random bytes. */
        uint32_t n = 100u + ss;
        random_payload(g, n);
        return n;
    }
    put64(g->payload, fid);
    for (int r = 0; r < 11; r++) /* x0..x7, lr, fp, sp */
        put64(g->payload + 8 + 8 * r, pp->extreme_regs ? EXTREMES[below(g, N_EXTREMES)] : next(g));
    g->payload[96] = (uint8_t)ss;
    g->payload[97] = (uint8_t)(ss >> 8);
    g->payload[98] = g->payload[99] = 0;
    for (unsigned i = 0; i < ss; i++)
        g->payload[100 + i] = (uint8_t)next(g);
    return 100u + ss;
}

static void emit(gen *g, size_t ti, uint64_t ts, uint64_t fid, uint32_t kind, uint32_t depth, int detail,
                 uint16_t flags, const payload_policy *pp, uint32_t forced_size)
{
    if (g->status)
        return;
    atf_scenario_event ev;
    memset(&ev, 0, sizeof ev);
    ev.thread = g->threads[ti].id;
    ev.timestamp_ns = ts;
    ev.function_id = fid;
    ev.event_kind = kind;
    ev.call_depth = depth;
    ev.thread_id = g->threads[ti].os_thread_id;
    if (detail && g->threads[ti].detail) {
        ev.has_detail = 1;
        ev.event_type = kind == ATF_EVENT_CALL ? ATF_DETAIL_FUNCTION_CALL : ATF_DETAIL_FUNCTION_RETURN;
        ev.flags = flags;
        ev.timestamp = ts;
        ev.payload_size = make_payload(g, pp, fid, forced_size);
        ev.payload = g->payload;
    }
    g->status = atf_scenario_write_event(g->out, &ev);
    g->emitted++;
}

/* Room for one more frame on s. @return 0, or -1 (g->status: no memory). */
static int grow_stack(gen *g, frame_stack *s)
{
    if (s->depth < s->cap)
        return 0;
    uint64_t *n = realloc(s->fid, (size_t)s->cap * 2 * sizeof *n);
    if (!n) {
        g->status = ATF_E_NOMEM;
        return -1;
    }
    s->fid = n;
    s->cap *= 2;
    return 0;
}

/* One step of a random call tree on thread ti: a call, a return, or (with
 * probability p_exc percent) an exception that unwinds the innermost frame. */
static void step(gen *g, size_t ti, uint32_t max_depth, unsigned p_exc, int detail, const payload_policy *pp)
{
    frame_stack *s = &g->stack[ti];
    unsigned r = (unsigned)below(g, 100);
    uint16_t flags = (uint16_t)below(g, 4);
    if (s->depth > 0 && r < p_exc) {
        uint64_t fid = s->fid[--s->depth];
        emit(g, ti, g->ts, fid, ATF_EVENT_EXCEPTION, s->depth, detail, flags, pp, UINT32_MAX);
    } else if (s->depth == 0 || (s->depth < max_depth && r < p_exc + (100 - p_exc) * 55 / 100)) {
        uint64_t fid = pick_function(g);
        if (grow_stack(g, s))
            return;
        emit(g, ti, g->ts, fid, ATF_EVENT_CALL, s->depth, detail, flags, pp, UINT32_MAX);
        s->fid[s->depth++] = fid;
    } else {
        uint64_t fid = s->fid[--s->depth];
        emit(g, ti, g->ts, fid, ATF_EVENT_RETURN, s->depth, detail, flags, pp, UINT32_MAX);
    }
}

/* Random interleaving of all threads; every_nth: detail on every Nth event of
 * a thread with a detail lane (1: every event, 0: none). */
static void random_walk(gen *g, uint64_t count, uint32_t max_depth, unsigned p_exc, unsigned every_nth,
                        const payload_policy *pp, uint64_t max_dt)
{
    for (uint64_t i = 0; i < count && !g->status; i++) {
        size_t ti = (size_t)below(g, g->info.thread_count);
        g->ts += max_dt ? 1 + below(g, max_dt) : 0;
        int detail = every_nth && below(g, every_nth) == 0;
        step(g, ti, max_depth, p_exc, detail, pp);
    }
}

/* ---- The scenarios ------------------------------------------------------ */

static const payload_policy ARM_RANDOM = { PAY_ARM64_RANDOM, 64, 0, 0 };

static void s_empty(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 1001, 1);
    begin(g);
}

static void s_one_event(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 4242, 1);
    begin(g);
    payload_policy pp = { PAY_ARM64_STACK, 16, 0, 0 };
    emit(g, 0, 1000000, (1ull << 32) | 7, ATF_EVENT_CALL, 0, 1, 0, &pp, UINT32_MAX);
}

static void s_million(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 5001, 1);
    add_thread(g, 2, 5002, 1);
    add_thread(g, 3, 5003, 0);
    add_thread(g, 4, 5004, 0);
    begin(g);
    payload_policy pp = { PAY_ARM64_RANDOM, 32, 0, 0 };
    random_walk(g, g->planned, 48, 2, 97, &pp, 50);
}

static void s_exceptions(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 7001, 1);
    add_thread(g, 2, 7002, 1);
    begin(g);
    random_walk(g, g->planned, 24, 15, 3, &ARM_RANDOM, 1000);
}

static void s_deep(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 8001, 1);
    begin(g);
    payload_policy pp = { PAY_ARM64_RANDOM, 8, 0, 0 };
    uint64_t half = g->planned / 2;
    frame_stack *s = &g->stack[0];
    for (uint64_t i = 0; i < half && !g->status; i++) { /* descend */
        g->ts += 1 + below(g, 20);
        uint64_t fid = pick_function(g);
        if (grow_stack(g, s))
            return;
        emit(g, 0, g->ts, fid, ATF_EVENT_CALL, s->depth, i % 4096 == 0, 0, &pp, UINT32_MAX);
        s->fid[s->depth++] = fid;
    }
    for (uint64_t i = 0; i < half && !g->status; i++) { /* unwind */
        g->ts += 1 + below(g, 20);
        uint64_t fid = s->fid[--s->depth];
        emit(g, 0, g->ts, fid, ATF_EVENT_RETURN, s->depth, i % 4096 == 4095, 0, &pp, UINT32_MAX);
    }
}

static void s_extreme(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 0, 0, 1);
    add_thread(g, UINT64_MAX, UINT32_MAX, 1);
    begin(g);
    /* From 0: a manifest time_start_ns of 0 is then the true time, not "unset" (SPEC 7a.8). */
    static const uint64_t ts[12] = { 0, 0, 1, 1ull << 32, (1ull << 63) - 1, 1ull << 63, UINT64_MAX - 3,
                                     UINT64_MAX - 2, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX, UINT64_MAX };
    static const uint64_t fid[6] = { 0, UINT64_MAX, 1ull << 63, UINT32_MAX, 1ull << 32, UINT64_MAX - 1 };
    static const uint32_t depth[3] = { 0, UINT32_MAX, UINT32_MAX - 1 };
    payload_policy pp = { PAY_ARM64_STACK, 0, 0, 1 };
    for (int k = 0; k < 12; k++)
        for (size_t t = 0; t < 2; t++) {
            pp.stack_size = k % 4 == 0 ? 256 : k % 4 == 2 ? 0 : 1;
            emit(g, t, ts[k], fid[(k + (int)t) % 6], (uint32_t)(1 + k % 3), depth[k % 3], k % 2 == 0,
                 k % 4 == 0 ? 0xffff : 0, &pp, UINT32_MAX);
        }
}

static void s_many_threads(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_ANDROID, ATF_CLOCK_BOOTTIME);
    for (uint32_t i = 0; i < 200; i++) {
        uint64_t id = i < 190 ? (uint64_t)i * 7919u + 3u : i < 195 ? (1ull << 32) + i : (1ull << 63) + i;
        add_thread(g, id, 10000u + i, i % 3 != 0);
    }
    begin(g);
    random_walk(g, g->planned, 16, 3, 2, &ARM_RANDOM, 100);
}

static void s_detail_every(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 9001, 1);
    add_thread(g, 2, 9002, 1);
    add_thread(g, 3, 9003, 1);
    begin(g);
    payload_policy pp = { PAY_ARM64_RANDOM, 256, 0, 0 };
    random_walk(g, g->planned, 32, 4, 1, &pp, 500);
}

static void s_max_stack(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_IOS, ATF_CLOCK_MACH_CONTINUOUS);
    add_thread(g, 1, 1201, 1);
    begin(g);
    payload_policy pp = { PAY_ARM64_STACK, ATF_ARM64_STACK_MAX, 0, 0 };
    static const uint32_t first[3] = { 0, 1, 255 };
    frame_stack *s = &g->stack[0];
    for (uint64_t i = 0; i < g->planned && !g->status; i++) {
        g->ts += 1 + below(g, 300);
        uint32_t forced = i < 3 ? first[i] : UINT32_MAX;
        if (s->depth == 0 || (s->depth < 40 && below(g, 2))) {
            uint64_t fid = pick_function(g);
            emit(g, 0, g->ts, fid, ATF_EVENT_CALL, s->depth, 1, 0, &pp, forced);
            s->fid[s->depth++] = fid;
        } else {
            uint64_t fid = s->fid[--s->depth];
            emit(g, 0, g->ts, fid, ATF_EVENT_RETURN, s->depth, 1, 0, &pp, forced);
        }
    }
}

static void s_no_detail(gen *g)
{
    platform(g, ATF_ARCH_X86_64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 3001, 0);
    add_thread(g, 2, 3002, 0);
    begin(g);
    random_walk(g, g->planned, 64, 2, 0, &ARM_RANDOM, 200);
}

static void s_x86(gen *g)
{
    platform(g, ATF_ARCH_X86_64, ATF_OS_WINDOWS, ATF_CLOCK_QPC);
    add_thread(g, 1, 2001, 1);
    add_thread(g, 2, 2002, 1);
    begin(g);
    payload_policy pp = { PAY_OPAQUE, 0, 2048, 0 };
    random_walk(g, g->planned, 32, 3, 2, &pp, 400);
}

static void s_symbols(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_MACOS, ATF_CLOCK_MACH_CONTINUOUS);
    add_thread(g, 1, 6001, 1);
    add_thread(g, 2, 6002, 0);
    /* Names that need JSON escaping or are not ASCII. */
    static const char *special[] = { "main", "operator \"quoted\"", "back\\slash", "h\xc3\xa9llo w\xc3\xb6rld",
                                     "\xe5\x90\x8d\xe5\x89\x8d", "two  spaces", "-[NSObject init]",
                                     "emoji \xf0\x9f\x98\x80", "tab\\tnot a tab", "slash/and<angle>&amp" };
    size_t ns = sizeof special / sizeof special[0];
    for (size_t i = 0; i < 40; i++) {
        uint64_t fid = ((uint64_t)(i % 4) << 32) | (uint64_t)(i * 37 + 1);
        if (i < ns)
            snprintf(g->symbol_names[i], sizeof g->symbol_names[i], "%s", special[i]);
        else
            snprintf(g->symbol_names[i], sizeof g->symbol_names[i], "module%zu::function_%zu", i % 4, i);
        g->symbols[i] = (atf_scenario_symbol){ fid, g->symbol_names[i] };
        g->info.symbol_count++;
    }
    begin(g);
    random_walk(g, g->planned, 12, 3, 3, &ARM_RANDOM, 1000);
}

static void s_mixed_lanes(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 10, 4010, 1); /* lane present, never used */
    add_thread(g, 20, 4020, 1); /* sparse */
    add_thread(g, 30, 4030, 0); /* no lane */
    add_thread(g, 40, 4040, 1); /* every event */
    begin(g);
    for (uint64_t i = 0; i < g->planned && !g->status; i++) {
        size_t ti = (size_t)below(g, 4);
        g->ts += 1 + below(g, 100);
        int detail = ti == 1 ? below(g, 11) == 0 : ti == 3;
        step(g, ti, 20, 3, detail, &ARM_RANDOM);
    }
}

static void s_equal_ts(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 1301, 1);
    add_thread(g, 2, 1302, 1);
    g->ts = 123456789;
    begin(g);
    random_walk(g, g->planned, 20, 3, 5, &ARM_RANDOM, 0);
}

static void s_ios(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_IOS, ATF_CLOCK_MACH_CONTINUOUS);
    add_thread(g, 1, 259, 1);
    add_thread(g, 2, 771, 1);
    begin(g);
    random_walk(g, g->planned, 30, 2, 4, &ARM_RANDOM, 2000);
}

static void s_android(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_ANDROID, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 12345, 1);
    add_thread(g, 5, 12350, 0);
    begin(g);
    random_walk(g, g->planned, 30, 2, 4, &ARM_RANDOM, 2000);
}

static void s_macos(gen *g)
{
    platform(g, ATF_ARCH_X86_64, ATF_OS_MACOS, ATF_CLOCK_MACH_CONTINUOUS);
    add_thread(g, 1, 515, 1);
    begin(g);
    payload_policy x86 = { PAY_OPAQUE, 0, 200, 0 };
    random_walk(g, g->planned, 30, 2, 4, g->info.arch == ATF_ARCH_ARM64 ? &ARM_RANDOM : &x86, 2000);
}

static void s_large_payloads(gen *g)
{
    platform(g, ATF_ARCH_X86_64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 1401, 1);
    begin(g);
    static const uint32_t sizes[8] = { 0, 1, 65535, 65536, 65537, 1048575, 1048577, 3u << 20 };
    payload_policy pp = { PAY_OPAQUE, 0, 0, 0 };
    for (int i = 0; i < 8; i++) {
        g->ts += 1000;
        emit(g, 0, g->ts, (uint64_t)i + 1, i % 2 ? ATF_EVENT_RETURN : ATF_EVENT_CALL, 0, 1, 0, &pp, sizes[i]);
    }
}

/* The smallest session: one thread, index lane only, no exceptions, no
 * symbols, a few hundred calls and returns: what any writer can write. */
static void s_minimal(gen *g)
{
    platform(g, ATF_ARCH_X86_64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 1001, 0);
    begin(g);
    random_walk(g, g->planned, 16, 0, 0, &ARM_RANDOM, 1000);
}

/* The arm64 counterpart of large_payloads (an arm64 function payload is at
 * most 356 bytes): detail events of every arm64 size straddling the 64 KiB
 * and 1 MiB offsets of detail.atf, a writer's buffer boundaries. */
static void s_large_arm64(gen *g)
{
    platform(g, ATF_ARCH_ARM64, ATF_OS_LINUX, ATF_CLOCK_BOOTTIME);
    add_thread(g, 1, 1401, 1);
    begin(g);
    payload_policy pp = { PAY_ARM64_RANDOM, ATF_ARM64_STACK_MAX, 0, 0 };
    frame_stack *s = &g->stack[0];
    for (uint64_t i = 0; i < g->planned && !g->status; i++) {
        g->ts += 1 + below(g, 50);
        if (s->depth == 0 || (s->depth < 40 && below(g, 2))) {
            uint64_t fid = pick_function(g);
            emit(g, 0, g->ts, fid, ATF_EVENT_CALL, s->depth, 1, 0, &pp, UINT32_MAX);
            s->fid[s->depth++] = fid;
        } else {
            uint64_t fid = s->fid[--s->depth];
            emit(g, 0, g->ts, fid, ATF_EVENT_RETURN, s->depth, 1, 0, &pp, UINT32_MAX);
        }
    }
}

typedef struct builtin {
    atf_builtin_scenario pub;
    void (*build)(gen *g);
    uint64_t payload_bytes;      /* rough, for the disk-space check */
} builtin;

/* SC(name, subject, description, layout, events, slow, generator, payload bytes, arch, threads).
 * A scenario whose subject does not depend on the payloads' arch exists in
 * both arches (README "Built-in scenarios"): the first-written variant keeps
 * its old name, the other one has `_x86` or `_arm64` before `_lN`; in an
 * x86_64 variant the payloads are opaque bytes of the sizes the arm64 ones
 * would have. */
#define SC(name, subj, desc, layout, events, slow, fn, pay, arch, threads) \
    { { name, desc, layout, events, slow, arch, subj, threads }, fn, pay }
#define X86 ATF_ARCH_X86_64
#define ARM ATF_ARCH_ARM64
#define X86_NOTE " (x86_64: opaque payloads)"

static const builtin BUILTINS[] = {
    SC("minimal_l1", "minimal", "one thread, index lane only, 300 calls and returns: what any writer can write", 1,
       300, 0, s_minimal, 0, X86, 1),
    SC("minimal_l2", "minimal", "one thread, index lane only, 300 calls and returns: what any writer can write", 2,
       300, 0, s_minimal, 0, X86, 1),
    SC("minimal_arm64_l1", "minimal", "one thread, index lane only, 300 calls and returns (arm64 header)", 1, 300, 0,
       s_minimal, 0, ARM, 1),
    SC("minimal_arm64_l2", "minimal", "one thread, index lane only, 300 calls and returns (arm64 header)", 2, 300, 0,
       s_minimal, 0, ARM, 1),
    SC("empty_l1", "empty", "one thread with a detail lane and no events", 1, 0, 0, s_empty, 0, ARM, 1),
    SC("empty_l2", "empty", "one thread with a detail lane and no events", 2, 0, 0, s_empty, 0, ARM, 1),
    SC("empty_x86_l1", "empty", "one thread with a detail lane and no events (x86_64 header)", 1, 0, 0, s_empty, 0,
       X86, 1),
    SC("empty_x86_l2", "empty", "one thread with a detail lane and no events (x86_64 header)", 2, 0, 0, s_empty, 0,
       X86, 1),
    SC("one_event_l1", "one_event", "a single call event with an arm64 detail event (16-byte stack)", 1, 1, 0,
       s_one_event, 0, ARM, 1),
    SC("one_event_l2", "one_event", "a single call event with an arm64 detail event (16-byte stack)", 2, 1, 0,
       s_one_event, 0, ARM, 1),
    SC("one_event_x86_l1", "one_event", "a single call event with an x86_64 detail event (116-byte opaque payload)",
       1, 1, 0, s_one_event, 0, X86, 1),
    SC("one_event_x86_l2", "one_event", "a single call event with an x86_64 detail event (116-byte opaque payload)",
       2, 1, 0, s_one_event, 0, X86, 1),
    SC("million_l2", "million", "1,000,000 events on 4 threads (2 with detail lanes, detail on ~1% of their events)",
       2, 1000000, 1, s_million, 2000000, ARM, 4),
    SC("million_x86_l2", "million", "1,000,000 events on 4 threads (2 with detail lanes, detail on ~1% of their "
       "events)" X86_NOTE, 2, 1000000, 1, s_million, 2000000, X86, 4),
    SC("exceptions_l1", "exceptions", "call trees with 15% exception events (unwinding a frame), detail on a third",
       1, 3000, 0, s_exceptions, 200000, ARM, 2),
    SC("exceptions_l2", "exceptions", "call trees with 15% exception events (unwinding a frame), detail on a third",
       2, 3000, 0, s_exceptions, 200000, ARM, 2),
    SC("exceptions_x86_l1", "exceptions", "call trees with 15% exception events (unwinding a frame), detail on a "
       "third" X86_NOTE, 1, 3000, 0, s_exceptions, 200000, X86, 2),
    SC("exceptions_x86_l2", "exceptions", "call trees with 15% exception events (unwinding a frame), detail on a "
       "third" X86_NOTE, 2, 3000, 0, s_exceptions, 200000, X86, 2),
    SC("deep_call_depth_l1", "deep_call_depth", "one thread descending to call depth 65536 and unwinding", 1, 131072,
       0, s_deep, 10000, ARM, 1),
    SC("deep_call_depth_l2", "deep_call_depth", "one thread descending to call depth 65536 and unwinding", 2, 131072,
       0, s_deep, 10000, ARM, 1),
    SC("deep_call_depth_x86_l1", "deep_call_depth", "one thread descending to call depth 65536 and unwinding"
       X86_NOTE, 1, 131072, 0, s_deep, 10000, X86, 1),
    SC("deep_call_depth_x86_l2", "deep_call_depth", "one thread descending to call depth 65536 and unwinding"
       X86_NOTE, 2, 131072, 0, s_deep, 10000, X86, 1),
    SC("extreme_values_l1", "extreme_values", "thread ids 0 and 2^64-1, timestamps 0..2^64-1 with repeats, extreme "
       "function ids, call depths and registers, flags 0xffff, stacks of 0 and 256 bytes", 1, 24, 0, s_extreme,
       10000, ARM, 2),
    SC("extreme_values_l2", "extreme_values", "thread ids 0 and 2^64-1, timestamps 0..2^64-1 with repeats, extreme "
       "function ids, registers, flags 0xffff, stacks of 0 and 256 bytes", 2, 24, 0, s_extreme, 10000, ARM, 2),
    SC("extreme_values_x86_l1", "extreme_values", "thread ids 0 and 2^64-1, timestamps 0..2^64-1 with repeats, "
       "extreme function ids and call depths, flags 0xffff, opaque payloads of 100..356 bytes", 1, 24, 0, s_extreme,
       10000, X86, 2),
    SC("extreme_values_x86_l2", "extreme_values", "thread ids 0 and 2^64-1, timestamps 0..2^64-1 with repeats, "
       "extreme function ids, flags 0xffff, opaque payloads of 100..356 bytes", 2, 24, 0, s_extreme, 10000, X86, 2),
    SC("many_threads_l1", "many_threads", "200 threads (sparse ids up to 2^63+199), two thirds with a detail lane", 1,
       5000, 0, s_many_threads, 400000, ARM, 200),
    SC("many_threads_l2", "many_threads", "200 threads (sparse ids up to 2^63+199), two thirds with a detail lane", 2,
       5000, 0, s_many_threads, 400000, ARM, 200),
    SC("many_threads_x86_l1", "many_threads", "200 threads (sparse ids up to 2^63+199), two thirds with a detail "
       "lane" X86_NOTE, 1, 5000, 0, s_many_threads, 400000, X86, 200),
    SC("many_threads_x86_l2", "many_threads", "200 threads (sparse ids up to 2^63+199), two thirds with a detail "
       "lane" X86_NOTE, 2, 5000, 0, s_many_threads, 400000, X86, 200),
    SC("detail_every_event_l1", "detail_every_event", "3 threads, every event with an arm64 detail event (stacks "
       "0..256)", 1, 3000, 0, s_detail_every, 800000, ARM, 3),
    SC("detail_every_event_l2", "detail_every_event", "3 threads, every event with an arm64 detail event (stacks "
       "0..256)", 2, 3000, 0, s_detail_every, 800000, ARM, 3),
    SC("detail_every_event_x86_l1", "detail_every_event", "3 threads, every event with an x86_64 detail event "
       "(opaque, 100..356 bytes)", 1, 3000, 0, s_detail_every, 800000, X86, 3),
    SC("detail_every_event_x86_l2", "detail_every_event", "3 threads, every event with an x86_64 detail event "
       "(opaque, 100..356 bytes)", 2, 3000, 0, s_detail_every, 800000, X86, 3),
    SC("max_stack_l1", "max_stack", "every event with an arm64 payload holding the maximum 256-byte stack (first "
       "ones 0, 1, 255)", 1, 600, 0, s_max_stack, 250000, ARM, 1),
    SC("max_stack_l2", "max_stack", "every event with an arm64 payload holding the maximum 256-byte stack (first "
       "ones 0, 1, 255)", 2, 600, 0, s_max_stack, 250000, ARM, 1),
    SC("max_stack_x86_l1", "max_stack", "every event with a 356-byte opaque x86_64 payload, the largest arm64 size "
       "(first ones 100, 101, 355 bytes)", 1, 600, 0, s_max_stack, 250000, X86, 1),
    SC("max_stack_x86_l2", "max_stack", "every event with a 356-byte opaque x86_64 payload, the largest arm64 size "
       "(first ones 100, 101, 355 bytes)", 2, 600, 0, s_max_stack, 250000, X86, 1),
    SC("no_detail_lane_l1", "no_detail_lane", "2 threads without detail lanes (no detail.atf)", 1, 5000, 0,
       s_no_detail, 0, X86, 2),
    SC("no_detail_lane_l2", "no_detail_lane", "2 threads without detail lanes (no detail.atf)", 2, 5000, 0,
       s_no_detail, 0, X86, 2),
    SC("no_detail_lane_arm64_l1", "no_detail_lane", "2 threads without detail lanes (no detail.atf), arm64 header",
       1, 5000, 0, s_no_detail, 0, ARM, 2),
    SC("no_detail_lane_arm64_l2", "no_detail_lane", "2 threads without detail lanes (no detail.atf), arm64 header",
       2, 5000, 0, s_no_detail, 0, ARM, 2),
    SC("x86_opaque_payloads_l1", "x86_opaque_payloads", "x86_64/Windows/QPC: opaque detail payloads of 0..2048 "
       "bytes", 1, 1500, 0, s_x86, 1600000, X86, 2),
    SC("x86_opaque_payloads_l2", "x86_opaque_payloads", "x86_64/Windows/QPC: opaque detail payloads of 0..2048 "
       "bytes", 2, 1500, 0, s_x86, 1600000, X86, 2),
    SC("symbols_l1", "symbols", "40 manifest symbols, names with quotes, backslashes, non-ASCII and spaces", 1, 600,
       0, s_symbols, 50000, ARM, 2),
    SC("symbols_l2", "symbols", "40 manifest symbols, names with quotes, backslashes, non-ASCII and spaces", 2, 600,
       0, s_symbols, 50000, ARM, 2),
    SC("symbols_x86_l1", "symbols", "40 manifest symbols, names with quotes, backslashes, non-ASCII and spaces"
       X86_NOTE, 1, 600, 0, s_symbols, 50000, X86, 2),
    SC("symbols_x86_l2", "symbols", "40 manifest symbols, names with quotes, backslashes, non-ASCII and spaces"
       X86_NOTE, 2, 600, 0, s_symbols, 50000, X86, 2),
    SC("mixed_lanes_l2", "mixed_lanes", "4 threads: a detail lane never used, sparse detail, no lane, detail on "
       "every event", 2, 2000, 0, s_mixed_lanes, 200000, ARM, 4),
    SC("mixed_lanes_x86_l2", "mixed_lanes", "4 threads: a detail lane never used, sparse detail, no lane, detail on "
       "every event" X86_NOTE, 2, 2000, 0, s_mixed_lanes, 200000, X86, 4),
    SC("equal_timestamps_l1", "equal_timestamps", "every event at the same timestamp (timestamps may repeat)", 1,
       1000, 0, s_equal_ts, 50000, ARM, 2),
    SC("equal_timestamps_x86_l1", "equal_timestamps", "every event at the same timestamp (timestamps may repeat)"
       X86_NOTE, 1, 1000, 0, s_equal_ts, 50000, X86, 2),
    SC("platform_ios_l1", "platform_ios", "arm64/iOS/mach_continuous, layout 1: what the ADA tracer writes", 1, 800,
       0, s_ios, 40000, ARM, 2),
    SC("platform_android_l2", "platform_android", "arm64/Android/boottime, one thread without a detail lane", 2, 800,
       0, s_android, 40000, ARM, 2),
    SC("platform_android_x86_l2", "platform_android", "x86_64/Android/boottime (an emulator), one thread without a "
       "detail lane", 2, 800, 0, s_android, 40000, X86, 2),
    SC("platform_macos_x86_l2", "platform_macos", "x86_64/macOS/mach_continuous with opaque payloads", 2, 800, 0,
       s_macos, 50000, X86, 1),
    SC("platform_macos_arm64_l2", "platform_macos", "arm64/macOS/mach_continuous (Apple silicon) with arm64 payloads",
       2, 800, 0, s_macos, 50000, ARM, 1),
    SC("large_payloads_l2", "large_payloads", "8 detail payloads of 0 B to 3 MiB (across 64 KiB and 1 MiB "
       "boundaries)", 2, 8, 0, s_large_payloads, 5400000, X86, 1),
    SC("large_payloads_arm64_l2", "large_payloads", "4,500 arm64 payloads of up to 356 bytes, detail.atf past 1 MiB "
       "(events across the 64 KiB and 1 MiB offsets)", 2, 4500, 0, s_large_arm64, 1200000, ARM, 1),
};
#define N_BUILTINS (sizeof BUILTINS / sizeof BUILTINS[0])

size_t atf_builtin_scenario_count(void)
{
    return N_BUILTINS;
}

const atf_builtin_scenario *atf_builtin_scenario_at(size_t i)
{
    return i < N_BUILTINS ? &BUILTINS[i].pub : NULL;
}

const atf_builtin_scenario *atf_builtin_scenario_find(const char *name)
{
    for (size_t i = 0; name && i < N_BUILTINS; i++)
        if (!strcmp(BUILTINS[i].pub.name, name))
            return &BUILTINS[i].pub;
    return NULL;
}

uint64_t kit_builtin_scenario_bytes(const atf_builtin_scenario *s)
{
    const builtin *b = (const builtin *)s;
    /* A line is under 100 bytes, an index event 32; payloads are written as hex and stored. */
    return s->events * 140u + b->payload_bytes * 4u + (1u << 20);
}

atf_status atf_builtin_scenario_write(const char *name, const char *path, atf_error *err)
{
    const atf_builtin_scenario *s = atf_builtin_scenario_find(name);
    if (!s) {
        atf_fail_file(err, ATF_E_NOT_FOUND, NULL, "no built-in scenario named '%s'", name ? name : "");
        return ATF_E_NOT_FOUND;
    }
    const builtin *b = (const builtin *)s;
    gen *g = calloc(1, sizeof *g);
    if (!g) {
        atf_fail_file(err, ATF_E_NOMEM, path, "out of memory");
        return ATF_E_NOMEM;
    }
    g->out = fopen(path, "wb");
    if (!g->out) {
        atf_fail_file(err, ATF_E_IO, path, "cannot create: %s", strerror(errno));
        free(g);
        return ATF_E_IO;
    }
    setvbuf(g->out, NULL, _IOFBF, 1u << 20);
    /* Seed: FNV-1a of the name. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = s->name; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    g->rng = h;
    g->ts = 1000000000ull + (h & 0xffffff);
    snprintf(g->info.name, sizeof g->info.name, "%s", s->name);
    snprintf(g->info.description, sizeof g->info.description, "%s", s->description);
    g->info.layout = s->layout;
    g->planned = s->events;
    g->arch = s->arch;
    b->build(g);
    if (!g->status && (g->emitted != g->planned || g->info.thread_count != s->threads))
        g->status = ATF_E_STATE;   /* the table and the generator disagree: a bug */
    if (!g->status)
        g->status = atf_scenario_write_end(g->out);
    if (fclose(g->out) != 0 && !g->status)
        g->status = ATF_E_IO;
    atf_status st = g->status;
    if (st == ATF_E_STATE)   /* the table and the generator disagree: a bug of the kit */
        atf_fail_file(err, st, path, "generator: %" PRIu64 " events and %zu threads, the table says %" PRIu64
                        " and %u", g->emitted, g->info.thread_count, g->planned, s->threads);
    else if (st)
        atf_fail_file(err, st, path, "cannot write the scenario (%" PRIu64 " of %" PRIu64 " events)", g->emitted,
                        g->planned);
    for (size_t i = 0; i < 256; i++)
        free(g->stack[i].fid);
    free(g);
    return st;
}

atf_status atf_builtin_scenarios_export(const char *dir, const char *const *names, size_t count, FILE *out,
                                        atf_error *err)
{
    if (!dir) {
        atf_fail_file(err, ATF_E_ARG, NULL, "no directory");
        return ATF_E_ARG;
    }
    size_t n = count ? count : N_BUILTINS;
    for (size_t i = 0; i < n; i++) { /* refuse unknown names before writing anything */
        const char *name = count ? names[i] : BUILTINS[i].pub.name;
        if (!atf_builtin_scenario_find(name)) {
            atf_fail_file(err, ATF_E_NOT_FOUND, NULL, "no built-in scenario named '%s' (see --list)", name);
            return ATF_E_NOT_FOUND;
        }
    }
    if (atf_make_dirs(dir) != 0) {
        atf_fail_file(err, ATF_E_IO, dir, "cannot create: %s", strerror(errno));
        return ATF_E_IO;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = count ? names[i] : BUILTINS[i].pub.name;
        char *path = kit_sprintf("%s/%s.scenario", dir, name);
        if (!path) {
            atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
            return ATF_E_NOMEM;
        }
        atf_status st = atf_builtin_scenario_write(name, path, err);
        if (!st && out)
            fprintf(out, "%s\n", path);
        free(path);
        if (st)
            return st;
    }
    return ATF_OK;
}
