/* Scenario files (conformance/kit/README.md, "Scenario format"): a streaming
 * reader with bounded memory and a writer.
 *
 * Memory: the header records (threads, symbols: bounded by the limits of
 * atf/conform.h), one line (at most twice the largest payload plus a little)
 * and one decoded payload. Events are never accumulated. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/conform.h>
#include <atf/format.h>

#include "bytes.h"    /* the codec's: atf_load_le64 */
#include "common.h"   /* the codec's: atf_utf8_decode, atf_parse_u64 */
#include "kit_internal.h"

#define MAX_LINE ((size_t)ATF_SCENARIO_MAX_PAYLOAD * 2u + 512u)
#define CHUNK (1u << 20)
#define MAX_FIELDS 16

typedef struct thread_state {
    uint64_t events, details;
    uint64_t last_ts, last_detail_ts;
} thread_state;

struct atf_scenario_reader {
    FILE *f;
    char path[256];
    atf_scenario_info info;
    atf_scenario_thread *threads;
    atf_scenario_symbol *symbols;
    thread_state *state;
    /* input window */
    char *chunk;
    size_t chunk_len, chunk_pos;
    int eof;
    uint64_t consumed;       /* bytes of the file before chunk[0] */
    /* current line */
    char *line;
    size_t line_len, line_cap;
    uint64_t line_no, line_offset;
    /* decoded payload */
    uint8_t *payload;
    size_t payload_cap;
    uint64_t events_read;
    int done, failed;
};

static int fail_line(atf_scenario_reader *r, atf_error *err, atf_status st, const char *field,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int fail_line(atf_scenario_reader *r, atf_error *err, atf_status st, const char *field,
                     const char *fmt, ...)
{
    r->failed = 1;
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = st;
        err->offset = r->line_offset;
        err->field = field;
        snprintf(err->file, sizeof err->file, "%s", r->path);
        char msg[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(err->message, sizeof err->message, "line %" PRIu64 ": %s", r->line_no, msg);
    }
    return -1;
}

/* Reads the next line into r->line (without "\n" or "\r\n").
 * Returns 1, 0 at the end of the file, -1 on error. */
static int read_line(atf_scenario_reader *r, atf_error *err)
{
    r->line_len = 0;
    r->line_offset = r->consumed + r->chunk_pos;
    r->line_no++;
    int any = 0;
    for (;;) {
        if (r->chunk_pos == r->chunk_len) {
            if (r->eof)
                break;
            r->consumed += r->chunk_len;
            r->chunk_len = fread(r->chunk, 1, CHUNK, r->f);
            r->chunk_pos = 0;
            if (r->chunk_len == 0) {
                if (ferror(r->f))
                    return fail_line(r, err, ATF_E_IO, NULL, "read error: %s", strerror(errno));
                r->eof = 1;
                break;
            }
        }
        any = 1;
        const char *start = r->chunk + r->chunk_pos;
        size_t avail = r->chunk_len - r->chunk_pos;
        const char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (r->line_len + take > MAX_LINE)
            return fail_line(r, err, ATF_E_LIMIT, NULL, "line longer than %zu bytes", (size_t)MAX_LINE);
        if (r->line_len + take + 1 > r->line_cap) {
            size_t cap = r->line_cap ? r->line_cap : 4096;
            while (cap < r->line_len + take + 1)
                cap *= 2;
            char *n = realloc(r->line, cap);
            if (!n)
                return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
            r->line = n;
            r->line_cap = cap;
        }
        memcpy(r->line + r->line_len, start, take);
        r->line_len += take;
        r->chunk_pos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    if (r->line_len && r->line[r->line_len - 1] == '\r')
        r->line_len--;
    r->line[r->line_len] = '\0';
    if (memchr(r->line, '\0', r->line_len))
        return fail_line(r, err, ATF_E_FIELD, NULL, "NUL byte in line");
    return 1;
}

static int is_blank_or_comment(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0' || *s == '#';
}

/* Splits in place on runs of spaces/tabs. Returns the number of fields, or
 * MAX_FIELDS + 1 if there are more. */
static int split(char *s, char **f)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        if (n == MAX_FIELDS)
            return MAX_FIELDS + 1;
        f[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

static int num(atf_scenario_reader *r, atf_error *err, const char *s, uint64_t max, const char *field,
               uint64_t *out)
{
    if (!atf_parse_u64(s, out))
        return fail_line(r, err, ATF_E_FIELD, field, "%s: not a decimal unsigned integer: '%.40s'", field, s);
    if (*out > max)
        return fail_line(r, err, ATF_E_FIELD, field, "%s: %" PRIu64 " is larger than %" PRIu64, field, *out,
                         max);
    return 0;
}

/* 1 if s[0..n) is valid UTF-8 without control characters. */
static int clean_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = atf_utf8_decode(s + i, n - i, &c);
        if (!k || c < 0x20 || c == 0x7f)
            return 0;
        i += k;
    }
    return 1;
}

/* The text after the keyword and its separator (for description, symbol). */
static const char *rest_after(const char *line, int fields_to_skip)
{
    const char *s = line;
    for (int i = 0; i < fields_to_skip; i++) {
        while (*s == ' ' || *s == '\t')
            s++;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int cmp_thread(const void *a, const void *b)
{
    const atf_scenario_thread *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_symbol(const void *a, const void *b)
{
    const atf_scenario_symbol *x = a, *y = b;
    return x->function_id < y->function_id ? -1 : x->function_id > y->function_id;
}

/* Index of thread `id` in threads[0..n) sorted by id (kit_internal.h). */
int kit_scenario_thread_find(const atf_scenario_thread *threads, size_t n, uint64_t id, size_t *idx)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (threads[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && threads[lo].id == id) {
        *idx = lo;
        return 1;
    }
    return 0;
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > ATF_SCENARIO_NAME_MAX)
        return 0;
    /* The name becomes a directory name: no leading '.' or '-'. */
    if (*s == '.' || *s == '-')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* A `description TEXT` or `symbol FUNCTION_ID TEXT` record (the text runs to
 * the end of the line). */
static int text_record(atf_scenario_reader *r, atf_error *err, const char *keyword, size_t *symbol_cap)
{
    int is_sym = keyword[0] == 's';
    const char *text = rest_after(r->line, is_sym ? 2 : 1);
    size_t tl = strlen(text);
    while (tl && (text[tl - 1] == ' ' || text[tl - 1] == '\t'))
        tl--;
    if (tl > ATF_SCENARIO_TEXT_MAX || !clean_utf8((const unsigned char *)text, tl))
        return fail_line(r, err, ATF_E_FIELD, is_sym ? "symbol" : "description", "%s: text must be valid UTF-8 without "
                         "control characters, at most %u bytes", keyword, ATF_SCENARIO_TEXT_MAX);
    if (!is_sym) {
        if (r->info.description[0])
            return fail_line(r, err, ATF_E_FIELD, "description", "description given twice");
        memcpy(r->info.description, text, tl);
        r->info.description[tl] = '\0';
        return 0;
    }
    if (tl == 0)
        return fail_line(r, err, ATF_E_FIELD, "symbol", "symbol: name is missing");
    char fid_text[32] = "";
    if (sscanf(r->line, " symbol %31s", fid_text) != 1)
        return fail_line(r, err, ATF_E_FIELD, "symbol", "symbol: function_id is missing");
    uint64_t fid;
    if (num(r, err, fid_text, UINT64_MAX, "function_id", &fid))
        return -1;
    if (r->info.symbol_count == ATF_SCENARIO_MAX_SYMBOLS)
        return fail_line(r, err, ATF_E_LIMIT, "symbol", "more than %u symbols", ATF_SCENARIO_MAX_SYMBOLS);
    if (r->info.symbol_count == *symbol_cap) {
        size_t cap = *symbol_cap ? *symbol_cap * 2 : 16;
        atf_scenario_symbol *n = realloc(r->symbols, cap * sizeof *n);
        if (!n)
            return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
        r->symbols = n;
        *symbol_cap = cap;
    }
    char *name = malloc(tl + 1);
    if (!name)
        return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
    memcpy(name, text, tl);
    name[tl] = '\0';
    r->symbols[r->info.symbol_count++] = (atf_scenario_symbol){ fid, name };
    return 0;
}

/* The `layout`, `arch`, `os` and `clock_type` records: one small number
 * each, once. have[] is indexed layout, arch, os, clock_type. */
static int platform_record(atf_scenario_reader *r, atf_error *err, char **f, int n, int have[4])
{
    uint64_t v;
    if (n != 2)
        return fail_line(r, err, ATF_E_FIELD, f[0], "%s: one value expected", f[0]);
    if (num(r, err, f[1], 255, f[0], &v))
        return -1;
    int k = f[0][0] == 'l' ? 0 : f[0][0] == 'a' ? 1 : f[0][0] == 'o' ? 2 : 3;
    if (have[k])
        return fail_line(r, err, ATF_E_FIELD, f[0], "%s given twice", f[0]);
    have[k] = 1;
    if (k == 0) {
        if (v != 1 && v != 2)
            return fail_line(r, err, ATF_E_FIELD, "layout", "layout must be 1 or 2");
        r->info.layout = (unsigned)v;
    } else if (k == 1) {
        if (v != ATF_ARCH_X86_64 && v != ATF_ARCH_ARM64)
            return fail_line(r, err, ATF_E_FIELD, "arch", "arch must be 1 (x86_64) or 2 (arm64)");
        r->info.arch = (unsigned)v;
    } else if (k == 2) {
        if (v < 1 || v > 5)
            return fail_line(r, err, ATF_E_FIELD, "os", "os must be one of 1..5");
        r->info.os = (unsigned)v;
    } else {
        if (v < 1 || v > 3)
            return fail_line(r, err, ATF_E_FIELD, "clock_type", "clock_type must be one of 1..3");
        r->info.clock_type = (unsigned)v;
    }
    return 0;
}

/* A `thread ID OS_THREAD_ID DETAIL` record. */
static int thread_record(atf_scenario_reader *r, atf_error *err, char **f, int n, size_t *thread_cap)
{
    uint64_t id, tid, det;
    if (n != 4)
        return fail_line(r, err, ATF_E_FIELD, "thread", "thread: expected `thread ID OS_THREAD_ID DETAIL`");
    if (num(r, err, f[1], UINT64_MAX, "id", &id) || num(r, err, f[2], UINT32_MAX, "os_thread_id", &tid) ||
        num(r, err, f[3], 1, "detail", &det))
        return -1;
    if (r->info.thread_count == ATF_SCENARIO_MAX_THREADS)
        return fail_line(r, err, ATF_E_LIMIT, "thread", "more than %u threads", ATF_SCENARIO_MAX_THREADS);
    if (r->info.thread_count == *thread_cap) {
        size_t cap = *thread_cap ? *thread_cap * 2 : 16;
        atf_scenario_thread *nt = realloc(r->threads, cap * sizeof *nt);
        if (!nt)
            return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
        r->threads = nt;
        *thread_cap = cap;
    }
    r->threads[r->info.thread_count++] = (atf_scenario_thread){ id, (uint32_t)tid, (int)det };
    return 0;
}

/* After `events`: every required record given, threads and symbols sorted
 * and unique, per-thread state allocated. */
static int finish_header(atf_scenario_reader *r, atf_error *err, const int have[4])
{
    const char *missing = !r->info.name[0] ? "name" : !have[0] ? "layout" : !have[1] ? "arch"
                        : !have[2] ? "os" : !have[3] ? "clock_type" : !r->info.thread_count ? "thread" : NULL;
    if (missing)
        return fail_line(r, err, ATF_E_FIELD, missing, "no `%s` record before `events`%s", missing,
                         !strcmp(missing, "thread") ? " (a session has at least one thread)" : "");
    qsort(r->threads, r->info.thread_count, sizeof *r->threads, cmp_thread);
    for (size_t i = 1; i < r->info.thread_count; i++)
        if (r->threads[i].id == r->threads[i - 1].id)
            return fail_line(r, err, ATF_E_FIELD, "thread", "thread %" PRIu64 " declared twice", r->threads[i].id);
    if (r->info.symbol_count)
        qsort(r->symbols, r->info.symbol_count, sizeof *r->symbols, cmp_symbol);
    for (size_t i = 1; i < r->info.symbol_count; i++)
        if (r->symbols[i].function_id == r->symbols[i - 1].function_id)
            return fail_line(r, err, ATF_E_FIELD, "symbol", "symbol %" PRIu64 " declared twice",
                             r->symbols[i].function_id);
    r->state = calloc(r->info.thread_count, sizeof *r->state);
    if (!r->state)
        return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
    r->info.threads = r->threads;
    r->info.symbols = r->symbols;
    return 0;
}

static int read_header(atf_scenario_reader *r, atf_error *err)
{
    int have_magic = 0, have[4] = { 0, 0, 0, 0 };   /* layout, arch, os, clock_type */
    size_t thread_cap = 0, symbol_cap = 0;
    char *f[MAX_FIELDS];
    for (;;) {
        int lr = read_line(r, err);
        if (lr < 0)
            return -1;
        if (lr == 0)
            return fail_line(r, err, ATF_E_TRUNCATED, NULL, "end of file before the `events` record");
        if (is_blank_or_comment(r->line))
            continue;
        /* Keep the raw line for rest-of-line records before splitting. */
        char raw_keyword[16] = "";
        sscanf(r->line, " %15s", raw_keyword);
        if (!have_magic) {
            int n = split(r->line, f);
            if (n != 2 || strcmp(f[0], "atf-scenario") != 0)
                return fail_line(r, err, ATF_E_MAGIC, NULL, "the first record must be `atf-scenario 1`");
            if (strcmp(f[1], "1") != 0)
                return fail_line(r, err, ATF_E_VERSION, NULL, "scenario format version %.20s is not supported "
                                 "(this kit reads version 1)", f[1]);
            have_magic = 1;
            continue;
        }
        if (!strcmp(raw_keyword, "description") || !strcmp(raw_keyword, "symbol")) {
            if (text_record(r, err, raw_keyword, &symbol_cap))
                return -1;
            continue;
        }
        int n = split(r->line, f);
        uint64_t v;
        if (!strcmp(f[0], "name")) {
            if (n != 2 || !valid_name(f[1]))
                return fail_line(r, err, ATF_E_FIELD, "name", "name: one word of letters, digits, '_', '-', "
                                 "'.' (at most %u, not starting with '.' or '-')", ATF_SCENARIO_NAME_MAX);
            if (r->info.name[0])
                return fail_line(r, err, ATF_E_FIELD, "name", "name given twice");
            snprintf(r->info.name, sizeof r->info.name, "%s", f[1]);
        } else if (!strcmp(f[0], "layout") || !strcmp(f[0], "arch") || !strcmp(f[0], "os") ||
                   !strcmp(f[0], "clock_type")) {
            if (platform_record(r, err, f, n, have))
                return -1;
        } else if (!strcmp(f[0], "thread")) {
            if (thread_record(r, err, f, n, &thread_cap))
                return -1;
        } else if (!strcmp(f[0], "events")) {
            if (n != 2)
                return fail_line(r, err, ATF_E_FIELD, "events", "events: one value expected");
            if (num(r, err, f[1], UINT64_MAX, "events", &v))
                return -1;
            r->info.event_count = v;
            break;
        } else if (!strcmp(f[0], "e") || !strcmp(f[0], "end")) {
            return fail_line(r, err, ATF_E_FIELD, NULL, "`%s` before the `events` record", f[0]);
        } else {
            return fail_line(r, err, ATF_E_FIELD, NULL, "unknown record `%.40s`", f[0]);
        }
    }
    return finish_header(r, err, have);
}

atf_status atf_scenario_open(atf_scenario_reader **out, const char *path, atf_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!out || !path) {
        atf_fail_file(err, ATF_E_ARG, path, "no path");
        return ATF_E_ARG;
    }
    *out = NULL;
    atf_scenario_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->chunk = malloc(CHUNK))) {
        free(r);
        atf_fail_file(err, ATF_E_NOMEM, path, "out of memory");
        return ATF_E_NOMEM;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    char why[160];
    r->f = kit_fopen_regular(path, why, sizeof why);
    if (!r->f) {
        atf_fail_file(err, ATF_E_IO, path, "%s", why);
        atf_scenario_close(r);
        return ATF_E_IO;
    }
    if (read_header(r, err) != 0) {
        atf_status st = err ? err->code : ATF_E_FIELD;
        atf_scenario_close(r);
        return st ? st : ATF_E_FIELD;
    }
    *out = r;
    return ATF_OK;
}

const atf_scenario_info *atf_scenario_reader_info(const atf_scenario_reader *r)
{
    return r ? &r->info : NULL;
}

uint64_t atf_scenario_thread_events(const atf_scenario_reader *r, size_t i)
{
    return r && i < r->info.thread_count ? r->state[i].events : 0;
}

uint64_t atf_scenario_thread_details(const atf_scenario_reader *r, size_t i)
{
    return r && i < r->info.thread_count ? r->state[i].details : 0;
}

/* The `end` record: the count matches, and only blank lines and comments
 * follow. */
static int read_end(atf_scenario_reader *r, atf_error *err, int n)
{
    if (n != 1)
        return fail_line(r, err, ATF_E_FIELD, NULL, "`end` takes no value");
    if (r->events_read != r->info.event_count)
        return fail_line(r, err, ATF_E_COUNT, "events", "`end` after %" PRIu64 " events, `events` said %"
                         PRIu64, r->events_read, r->info.event_count);
    for (;;) {
        int lr = read_line(r, err);
        if (lr < 0)
            return -1;
        if (lr == 0)
            break;
        if (!is_blank_or_comment(r->line))
            return fail_line(r, err, ATF_E_FIELD, NULL, "records after `end`");
    }
    r->done = 1;
    return 0;
}

/* The payload's hex digits ("-": none) into r->payload. */
static int read_payload(atf_scenario_reader *r, atf_error *err, const char *hex, size_t *size)
{
    size_t hl = strlen(hex);
    if (!strcmp(hex, "-"))
        hl = 0;
    else if (hl % 2)
        return fail_line(r, err, ATF_E_FIELD, "payload", "payload: odd number of hex digits");
    size_t pl = hl / 2;
    if (pl > ATF_SCENARIO_MAX_PAYLOAD)
        return fail_line(r, err, ATF_E_LIMIT, "payload", "payload larger than %u bytes", ATF_SCENARIO_MAX_PAYLOAD);
    if (pl > r->payload_cap) {
        size_t cap = r->payload_cap ? r->payload_cap : 4096;
        while (cap < pl)
            cap *= 2;
        uint8_t *np = realloc(r->payload, cap);
        if (!np)
            return fail_line(r, err, ATF_E_NOMEM, NULL, "out of memory");
        r->payload = np;
        r->payload_cap = cap;
    }
    for (size_t i = 0; i < pl; i++) {
        int hi = atf_hex_digit((unsigned char)hex[2 * i]), lo = atf_hex_digit((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return fail_line(r, err, ATF_E_FIELD, "payload", "payload: not a hex digit at byte %zu", 2 * i +
                             (hi < 0 ? 0 : 1));
        r->payload[i] = (uint8_t)(hi << 4 | lo);
    }
    *size = pl;
    return 0;
}

/* arm64 function payloads are normative (SPEC 3.4). */
static int check_arm64_payload(atf_scenario_reader *r, atf_error *err, size_t pl, uint64_t function_id)
{
    if (pl < ATF_ARM64_PAYLOAD_FIXED_SIZE)
        return fail_line(r, err, ATF_E_FIELD, "payload", "arm64 payload shorter than 100 bytes (ARM-PAY-001)");
    unsigned ss = (unsigned)r->payload[96] | (unsigned)r->payload[97] << 8;
    if (ss > ATF_ARM64_STACK_MAX || pl != ATF_ARM64_PAYLOAD_FIXED_SIZE + ss)
        return fail_line(r, err, ATF_E_FIELD, "payload", "arm64 payload is not 100 + stack_size bytes "
                         "with stack_size <= 256 (ARM-PAY-002/003)");
    if (r->payload[98] || r->payload[99])
        return fail_line(r, err, ATF_E_FIELD, "payload", "arm64 payload reserved bytes not 0 (ARM-PAY-004)");
    if (atf_load_le64(r->payload) != function_id)
        return fail_line(r, err, ATF_E_FIELD, "payload", "arm64 payload function_id differs from the "
                         "event's (ARM-PAY-005)");
    return 0;
}

/* The detail fields of an `e` record (f[7..10]) into ev. */
static int read_detail(atf_scenario_reader *r, atf_error *err, char **f, atf_scenario_event *ev,
                       const atf_scenario_thread *t, thread_state *s)
{
    uint64_t v;
    if (!t->detail)
        return fail_line(r, err, ATF_E_FIELD, "detail", "thread %" PRIu64 " has no detail lane (`thread` "
                         "record with DETAIL 0)", ev->thread);
    if (r->info.layout == 1 && s->details == UINT32_MAX - 1u)
        return fail_line(r, err, ATF_E_LIMIT, NULL, "layout 1 holds at most 2^32-2 detail events per thread");
    ev->has_detail = 1;
    if (num(r, err, f[7], UINT16_MAX, "event_type", &v))
        return -1;
    ev->event_type = (uint16_t)v;
    if (v != ATF_DETAIL_FUNCTION_CALL && v != ATF_DETAIL_FUNCTION_RETURN)
        return fail_line(r, err, ATF_E_FIELD, "event_type", "event_type must be 3 or 4 (DET-EVT-003)");
    if (num(r, err, f[8], UINT16_MAX, "flags", &v))
        return -1;
    ev->flags = (uint16_t)v;
    if (num(r, err, f[9], UINT64_MAX, "timestamp", &ev->timestamp))
        return -1;
    if (ev->timestamp != ev->timestamp_ns)
        return fail_line(r, err, ATF_E_FIELD, "timestamp", "the detail timestamp must equal timestamp_ns "
                         "(LINK-007)");
    size_t pl = 0;
    if (read_payload(r, err, f[10], &pl))
        return -1;
    ev->payload = pl ? r->payload : NULL;
    ev->payload_size = (uint32_t)pl;
    if (r->info.arch == ATF_ARCH_ARM64 && check_arm64_payload(r, err, pl, ev->function_id))
        return -1;
    if (s->details && ev->timestamp < s->last_detail_ts)
        return fail_line(r, err, ATF_E_FIELD, "timestamp", "detail timestamps go backwards (DET-EVT-004)");
    s->last_detail_ts = ev->timestamp;
    s->details++;
    return 0;
}

/* An `e` record of n fields (8 or 11 with the keyword) into ev. */
static int read_event(atf_scenario_reader *r, atf_error *err, char **f, int n, atf_scenario_event *ev)
{
    if (r->events_read == r->info.event_count)
        return fail_line(r, err, ATF_E_COUNT, "events", "more `e` records than `events` said (%" PRIu64 ")",
                         r->info.event_count);
    if (n != 8 && n != 11)
        return fail_line(r, err, ATF_E_FIELD, NULL, "an `e` record has 7 fields (no detail) or 10 fields "
                         "(with detail), found %d", n - 1);
    if (n == 8 && strcmp(f[7], "-") != 0)
        return fail_line(r, err, ATF_E_FIELD, "detail", "the 7th field of an `e` record without detail is `-`");
    memset(ev, 0, sizeof *ev);
    uint64_t v;
    if (num(r, err, f[1], UINT64_MAX, "thread", &ev->thread))
        return -1;
    if (!kit_scenario_thread_find(r->threads, r->info.thread_count, ev->thread, &ev->thread_index))
        return fail_line(r, err, ATF_E_FIELD, "thread", "thread %" PRIu64 " has no `thread` record", ev->thread);
    const atf_scenario_thread *t = &r->threads[ev->thread_index];
    thread_state *s = &r->state[ev->thread_index];
    if (num(r, err, f[2], UINT64_MAX, "timestamp_ns", &ev->timestamp_ns) ||
        num(r, err, f[3], UINT64_MAX, "function_id", &ev->function_id) ||
        num(r, err, f[4], UINT32_MAX, "event_kind", &v))
        return -1;
    ev->event_kind = (uint32_t)v;
    if (v < 1 || v > 3)
        return fail_line(r, err, ATF_E_FIELD, "event_kind", "event_kind must be 1, 2 or 3 (IDX-EVT-001)");
    if (num(r, err, f[5], UINT32_MAX, "call_depth", &v))
        return -1;
    ev->call_depth = (uint32_t)v;
    if (num(r, err, f[6], UINT32_MAX, "thread_id", &v))
        return -1;
    ev->thread_id = (uint32_t)v;
    if (ev->thread_id != t->os_thread_id)
        return fail_line(r, err, ATF_E_FIELD, "thread_id", "thread_id %" PRIu32 " differs from the thread's "
                         "os_thread_id %" PRIu32 " (IDX-EVT-004)", ev->thread_id, t->os_thread_id);
    if (s->events && ev->timestamp_ns < s->last_ts)
        return fail_line(r, err, ATF_E_FIELD, "timestamp_ns", "timestamp_ns goes backwards in thread %" PRIu64
                         " (IDX-EVT-003)", ev->thread);
    if (r->info.layout == 1 && s->events == UINT32_MAX)
        return fail_line(r, err, ATF_E_LIMIT, NULL, "layout 1 holds at most 2^32-1 events per thread");
    if (n == 11 && read_detail(r, err, f, ev, t, s))
        return -1;
    s->last_ts = ev->timestamp_ns;
    s->events++;
    r->events_read++;
    return 1;
}

int atf_scenario_next(atf_scenario_reader *r, atf_scenario_event *ev, atf_error *err)
{
    if (!r || !ev)
        return -1;
    if (r->failed) {
        atf_fail_file(err, ATF_E_STATE, r->path, "the scenario reader already failed");
        return -1;
    }
    if (r->done)
        return 0;
    char *f[MAX_FIELDS];
    for (;;) {
        int lr = read_line(r, err);
        if (lr < 0)
            return -1;
        if (lr == 0)
            return fail_line(r, err, ATF_E_TRUNCATED, NULL, "end of file after %" PRIu64 " of %" PRIu64
                             " events, without the `end` record", r->events_read, r->info.event_count);
        if (is_blank_or_comment(r->line))
            continue;
        int n = split(r->line, f);
        if (!strcmp(f[0], "end"))
            return read_end(r, err, n);
        if (strcmp(f[0], "e") != 0)
            return fail_line(r, err, ATF_E_FIELD, NULL, "expected an `e` record or `end`, found `%.40s`", f[0]);
        return read_event(r, err, f, n, ev);
    }
}

void atf_scenario_close(atf_scenario_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    for (size_t i = 0; i < r->info.symbol_count; i++)
        free((char *)r->symbols[i].name);
    free(r->symbols);
    free(r->threads);
    free(r->state);
    free(r->chunk);
    free(r->line);
    free(r->payload);
    free(r);
}

/* ---- Writer ------------------------------------------------------------ */

atf_status atf_scenario_write_header(FILE *out, const atf_scenario_info *info)
{
    if (!out || !info)
        return ATF_E_ARG;
    fprintf(out, "atf-scenario %d\n", ATF_SCENARIO_VERSION);
    fprintf(out, "name %s\n", info->name);
    if (info->description[0])
        fprintf(out, "description %s\n", info->description);
    fprintf(out, "layout %u\narch %u\nos %u\nclock_type %u\n", info->layout, info->arch, info->os,
            info->clock_type);
    for (size_t i = 0; i < info->thread_count; i++)
        fprintf(out, "thread %" PRIu64 " %" PRIu32 " %d\n", info->threads[i].id, info->threads[i].os_thread_id,
                info->threads[i].detail ? 1 : 0);
    for (size_t i = 0; i < info->symbol_count; i++)
        fprintf(out, "symbol %" PRIu64 " %s\n", info->symbols[i].function_id, info->symbols[i].name);
    fprintf(out, "events %" PRIu64 "\n", info->event_count);
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

atf_status atf_scenario_write_event(FILE *out, const atf_scenario_event *ev)
{
    if (!out || !ev)
        return ATF_E_ARG;
    fprintf(out, "e %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32, ev->thread,
            ev->timestamp_ns, ev->function_id, ev->event_kind, ev->call_depth, ev->thread_id);
    if (!ev->has_detail) {
        fputs(" -\n", out);
    } else {
        fprintf(out, " %u %u %" PRIu64 " ", (unsigned)ev->event_type, (unsigned)ev->flags, ev->timestamp);
        if (!ev->payload_size) {
            fputc('-', out);
        } else {
            static const char digits[] = "0123456789abcdef";
            char buf[512];
            size_t k = 0;
            for (uint32_t i = 0; i < ev->payload_size; i++) {
                buf[k++] = digits[ev->payload[i] >> 4];
                buf[k++] = digits[ev->payload[i] & 15];
                if (k == sizeof buf) {
                    fwrite(buf, 1, k, out);
                    k = 0;
                }
            }
            fwrite(buf, 1, k, out);
        }
        fputc('\n', out);
    }
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

atf_status atf_scenario_write_end(FILE *out)
{
    if (!out)
        return ATF_E_ARG;
    fputs("end\n", out);
    return ferror(out) ? ATF_E_IO : ATF_OK;
}
