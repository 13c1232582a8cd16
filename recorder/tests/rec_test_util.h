/* Helpers shared by the recorder tests: temporary directories, the size of
 * the big tests, reading a recorded session back with the codec, and
 * running the structural checks of `atf validate`. Header-only. */
#ifndef ATF_REC_TEST_UTIL_H
#define ATF_REC_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/reader.h>
#include <atf/recorder.h>
#include <atf/session.h>
#include <atf/tools.h>
#include <atf/validator.h>

#include "common.h"   /* atf_remove_tree */

/* Sanitizer builds define ATF_REC_TEST_SMALL: the big tests shrink so that
 * the recorder suite stays under a minute there. ATF_REC_TEST_SCALE (a
 * percentage) overrides both. */
static inline uint64_t rt_scaled(uint64_t full)
{
    const char *e = getenv("ATF_REC_TEST_SCALE");
    if (e && *e) {
        uint64_t pct = strtoull(e, NULL, 10);
        uint64_t v = full * pct / 100;
        return v ? v : 1;
    }
#if defined(ATF_REC_TEST_SMALL)
    return full / 10 ? full / 10 : 1;
#else
    return full;
#endif
}

static inline uint64_t rt_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static inline uint64_t rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void rt_sleep_us(unsigned us)
{
    struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
    nanosleep(&ts, NULL);
}

/* A fresh directory under TMPDIR (or /tmp): .../atf-rec-<tag>-XXXXXX. */
static inline void rt_mkdtemp(char *buf, size_t cap, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, cap, "%s/atf-rec-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    assert_non_null(mkdtemp(buf));
}

/* rm -rf, only for directories this file created. */
static inline void rt_rm_rf(const char *path)
{
    if (strstr(path, "/atf-rec-"))
        atf_remove_tree(path);
}

static inline char *rt_path(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return buf;
}

static inline int rt_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- Structural checks (atf validate) ------------------------------------ */

/* Runs `atf validate` on dir (the validator, every clause of the spec);
 * fails on any error but those whose clause starts with `error_prefix`
 * (NULL: none), and on any warning but those of clause `allowed` ("*":
 * every clause; NULL: none). @return the warning count. */
static inline unsigned rt_check_core(const char *dir, const char *allowed, const char *error_prefix)
{
    atf_validation *v = NULL;
    atf_error err;
    if (atf_validate_path(&v, dir, NULL, &err) != ATF_OK)
        fail_msg("atf_validate_path(%s): %s", dir, err.message);
    uint64_t errors = 0, warnings = 0, bad_errors = 0, bad_warnings = 0;
    atf_validation_counts(v, &errors, &warnings);
    char first[600] = "";
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        int is_error = f->severity == ATF_SEV_ERROR;
        int ok = is_error ? error_prefix && !strncmp(f->clause, error_prefix, strlen(error_prefix))
                          : allowed && (!strcmp(allowed, "*") || !strcmp(allowed, f->clause));
        bad_errors += is_error && !ok;
        bad_warnings += !is_error && !ok;
        if (!ok && (is_error || !first[0]))
            snprintf(first, sizeof first, "%s%s: %s: %s: %s", is_error ? "" : "warning: ", f->clause, f->file,
                     f->field ? f->field : "", f->message);
        if (!ok && is_error)
            break;
    }
    atf_validation_free(v);
    if (bad_errors)
        fail_msg("%s: %llu error(s), first: %s", dir, (unsigned long long)errors, first);
    if (bad_warnings)
        fail_msg("%s: %llu warning(s), first: %s", dir, (unsigned long long)warnings, first);
    return (unsigned)warnings;
}

/* rt_check_core() with no error allowed. */
static inline unsigned rt_check_allowing(const char *dir, const char *allowed)
{
    return rt_check_core(dir, allowed, NULL);
}

/* rt_check_allowing() with every warning allowed, or none. */
static inline unsigned rt_check(const char *dir, int allow_warnings)
{
    return rt_check_allowing(dir, allow_warnings ? "*" : NULL);
}

/* rt_check() of a session whose detail events carry test bytes, not the
 * ARM64 function payload. Where the recorder runs on arm64 its headers say
 * arch 2, and there SPEC 3.4 makes the payloads of detail types 3 and 4
 * ARM64 payloads (ARM-PAY-*), which test bytes are not: those findings, and
 * only those, are allowed on arm64. Elsewhere payloads are opaque bytes. */
static inline unsigned rt_check_opaque_detail(const char *dir, int allow_warnings)
{
#if defined(__aarch64__)
    return rt_check_core(dir, allow_warnings ? "*" : NULL, "ARM-PAY-");
#else
    return rt_check(dir, allow_warnings);
#endif
}

static inline atf_session *rt_open(const char *dir)
{
    atf_session *s = NULL;
    atf_error err;
    if (atf_session_open(&s, dir, NULL, &err) != ATF_OK)
        fail_msg("atf_session_open(%s): %s: %s", dir, err.file, err.message);
    return s;
}

static inline json_t *rt_manifest_json(const char *dir)
{
    char p[1024];
    json_error_t je;
    json_t *root = json_load_file(rt_path(p, sizeof p, "%s/manifest.json", dir), 0, &je);
    if (!root)
        fail_msg("%s: %s", p, je.text);
    return root;
}

/* A u64 from an object path like "recorder", "events_lost_at_stop" (NULL ends). */
static inline uint64_t rt_json_u64(json_t *root, ...)
{
    va_list ap;
    va_start(ap, root);
    json_t *v = root;
    const char *k;
    while ((k = va_arg(ap, const char *)) != NULL) {
        v = json_object_get(v, k);
        if (!v)
            fail_msg("manifest key %s missing", k);
    }
    va_end(ap);
    if (!json_is_integer(v))
        fail_msg("manifest value is not an integer");
    return (uint64_t)json_integer_value(v);
}

/* Options for a test session in dir: small buffers, no fdatasync. */
static inline atf_recorder_options rt_options(const char *dir)
{
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.session_dir = dir;
    o.sync = 0;
    o.ring_events = 1u << 14;
    o.io_chunk_bytes = 256u << 10;
    return o;
}

static inline atf_recorder *rt_start(const atf_recorder_options *o)
{
    atf_recorder *r = NULL;
    atf_error err;
    atf_status st = atf_recorder_start(&r, o, &err);
    if (st != ATF_OK)
        fail_msg("atf_recorder_start: %s: %s", atf_strerror(st), err.message);
    return r;
}

static inline void rt_stop(atf_recorder *r)
{
    atf_error err;
    atf_status st = atf_recorder_stop(r, &err);
    if (st != ATF_OK)
        fail_msg("atf_recorder_stop: %s: %s %s", atf_strerror(st), err.file, err.message);
}

#endif /* ATF_REC_TEST_UTIL_H */
