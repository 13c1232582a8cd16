/*
 * example_adapter.c -- how to connect YOUR ATF writer to `atf conform --writer`.
 *
 * The writer kit runs your adapter once per scenario:
 *
 *     your-adapter SCENARIO_FILE OUTPUT_DIR
 *
 * SCENARIO_FILE says which session to write (conformance/kit/README.md,
 * "Scenario format"); OUTPUT_DIR is an empty directory that already exists.
 * The adapter writes the session there -- manifest.json and one thread_K/
 * directory per thread with index.atf and, if the thread has a detail lane,
 * detail.atf -- and exits 0. Any other exit status means "my writer failed".
 * Then the kit validates the session clause by clause and compares every
 * event with the scenario.
 *
 * Before the scenarios the kit asks `your-adapter --capabilities`: print
 * what your writer can write (README, "Capabilities") and exit 0, and the
 * scenarios it cannot write are reported "not applicable" instead of
 * failing. Exit non-zero (or print nothing of the kind) to be given every
 * scenario.
 *
 * This example is self-contained: it parses the scenario with plain stdio
 * (no kit library needed; do the same in any language) and writes with
 * this project's writer API (atf/session.h). The places marked
 * "YOUR WRITER" are the only ones to change for another writer.
 *
 * Build (inside this project it is built as `example_adapter`), against an
 * installed kit (share/atf/examples/ holds this file):
 *     cc -std=c11 example_adapter.c $(pkg-config --cflags --libs atf)
 * Try it:
 *     atf conform --writer ./example_adapter
 */
#define _POSIX_C_SOURCE 200809L   /* getline() */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/session.h>          /* YOUR WRITER: your own header here */

#define MAX_THREADS 65536

/* One `thread` record: session id K (directory thread_K), OS thread id, detail lane. */
struct thread {
    uint64_t id;
    unsigned long os_tid;
    int detail;
    atf_thread_writer *w;         /* YOUR WRITER: your per-thread handle */
};

static struct thread threads[MAX_THREADS];
static size_t nthreads;

static int die(const char *msg, unsigned long long line)
{
    fprintf(stderr, "example_adapter: line %llu: %s\n", line, msg);
    return 1;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The scenario file being read, line by line. */
struct input {
    FILE *f;
    char *line;
    size_t cap;
    unsigned long long lineno;
};

/* ---- 1. Header records, up to `events N` ---------------------------- */
static int read_header(struct input *in, atf_writer_options *o)
{
    unsigned layout = 0, arch = 0, os = 0, clock_type = 0;
    while (getline(&in->line, &in->cap, in->f) > 0) {
        char *line = in->line;
        in->lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;                                   /* comments, blank lines */
        char key[32];
        if (sscanf(line, "%31s", key) != 1)
            continue;
        if (!strcmp(key, "layout"))
            sscanf(line, "layout %u", &layout);
        else if (!strcmp(key, "arch"))
            sscanf(line, "arch %u", &arch);
        else if (!strcmp(key, "os"))
            sscanf(line, "os %u", &os);
        else if (!strcmp(key, "clock_type"))
            sscanf(line, "clock_type %u", &clock_type);
        else if (!strcmp(key, "thread")) {
            struct thread *t = &threads[nthreads];
            if (nthreads == MAX_THREADS ||
                sscanf(line, "thread %" SCNu64 " %lu %d", &t->id, &t->os_tid, &t->detail) != 3)
                return die("bad thread record", in->lineno);
            nthreads++;
        } else if (!strcmp(key, "events"))
            break;
        /* `atf-scenario 1`, `name`, `description`: nothing to do. `symbol`
         * records are read in a second look below, once the session exists. */
    }
    /* YOUR WRITER: the header values of the scenario. */
    o->layout = (atf_layout)layout;                     /* version byte 1 or 2 */
    o->arch = (uint8_t)arch;
    o->os = (uint8_t)os;
    o->clock_type = (uint8_t)clock_type;
    return 0;
}

/* Symbols: read the header again for `symbol FUNCTION_ID NAME` records
 * (NAME is the rest of the line and may contain spaces). */
static void read_symbols(struct input *in, atf_session_writer *sw)
{
    rewind(in->f);
    while (getline(&in->line, &in->cap, in->f) > 0) {
        char *line = in->line;
        line[strcspn(line, "\r\n")] = '\0';
        if (!strncmp(line, "events ", 7))
            break;
        uint64_t fid;
        int name_at = 0;
        if (sscanf(line, "symbol %" SCNu64 " %n", &fid, &name_at) == 1 && name_at > 0) {
            atf_manifest_symbol s = { fid, fid >> 32, fid & 0xffffffffu, line + name_at };
            atf_session_writer_add_symbol(sw, &s);      /* YOUR WRITER: record the symbol */
        }
    }
}

/* The four detail fields of an `e` record; the payload is hex ("-" = empty),
 * decoded into *payload (reallocated). */
static int read_detail(const char *line, unsigned long long lineno, uint8_t **payload, atf_detail_event *de)
{
    unsigned etype, flags;
    uint64_t dts;
    int hex_at = 0;
    if (sscanf(line, "e %*s %*s %*s %*s %*s %*s %u %u %" SCNu64 " %n", &etype, &flags, &dts, &hex_at) != 3 ||
        !hex_at)
        return die("bad detail fields", lineno);
    const char *hex = line + hex_at;
    size_t len = strcmp(hex, "-") ? strlen(hex) / 2 : 0;
    free(*payload);
    *payload = malloc(len ? len : 1);
    if (!*payload)
        return die("out of memory", lineno);
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return die("bad payload hex", lineno);
        (*payload)[i] = (uint8_t)(hi << 4 | lo);
    }
    de->event_type = (uint16_t)etype;
    de->flags = (uint16_t)flags;
    de->timestamp = dts;
    de->payload = *payload;
    de->payload_size = (uint32_t)len;
    return 0;
}

/* ---- 2. Event records ------------------------------------------------ */
/* e THREAD TIMESTAMP_NS FUNCTION_ID EVENT_KIND CALL_DEPTH THREAD_ID -
 * e THREAD TIMESTAMP_NS FUNCTION_ID EVENT_KIND CALL_DEPTH THREAD_ID TYPE FLAGS TIMESTAMP PAYLOAD_HEX */
static int write_events(struct input *in, uint8_t **payload)
{
    while (getline(&in->line, &in->cap, in->f) > 0) {
        char *line = in->line;
        in->lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!strcmp(line, "end"))
            break;
        uint64_t tid_k, ts, fid;
        unsigned kind, depth;
        unsigned long ostid;
        char rest[8];
        int n = sscanf(line, "e %" SCNu64 " %" SCNu64 " %" SCNu64 " %u %u %lu %7s", &tid_k, &ts, &fid, &kind, &depth,
                       &ostid, rest);
        if (n != 7)
            return die("bad event record", in->lineno);
        struct thread *t = NULL;
        for (size_t i = 0; i < nthreads && !t; i++)     /* a real adapter would use a hash map */
            if (threads[i].id == tid_k)
                t = &threads[i];
        if (!t)
            return die("event for an unknown thread", in->lineno);

        atf_index_event ie = { 0 };                     /* YOUR WRITER: your event struct */
        ie.timestamp_ns = ts;
        ie.function_id = fid;
        ie.event_kind = kind;
        ie.call_depth = depth;                          /* stored in layout 1 only */
        ie.thread_id = (uint32_t)ostid;                 /* stored in layout 1 only */
        atf_detail_event de = { 0 };
        int has_detail = strcmp(rest, "-") != 0;
        if (has_detail) {
            if (read_detail(line, in->lineno, payload, &de))
                return 1;
            de.thread_id = (uint32_t)ostid;
        }
        /* YOUR WRITER: append the event (and its detail event). The links --
         * index detail_seq = position of the detail event in detail.atf,
         * detail index_seq = position of the index event -- are the writer's
         * job; this API fills them in. */
        if (atf_thread_writer_append(t->w, &ie, has_detail ? &de : NULL, NULL) != ATF_OK)
            return die("the writer refused the event", in->lineno);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--capabilities") == 0) {
        /* YOUR WRITER: what it can write. This project's writes everything;
         * a layout-1 writer that records its own platform would print
         * "layouts 1", "arch 2", "os 1", "clock_type 1" lines, say. */
        fputs("atf-capabilities 1\nlayouts 1 2\narch 1 2\ndetail yes\nexceptions yes\nsymbols yes\n", stdout);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: example_adapter SCENARIO_FILE OUTPUT_DIR\n");
        return 2;
    }
    struct input in = { fopen(argv[1], "r"), NULL, 0, 0 };
    if (!in.f) {
        perror(argv[1]);
        return 1;
    }
    atf_session_writer *sw = NULL;
    atf_error err;
    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    if (read_header(&in, &o))
        return 1;

    /* YOUR WRITER: create the session, its threads, its symbols. */
    if (atf_session_writer_create(&sw, argv[2], &o, &err) != ATF_OK)
        return die(err.message, in.lineno);
    for (size_t i = 0; i < nthreads; i++)
        if (atf_session_writer_add_thread(sw, threads[i].id, (uint32_t)threads[i].os_tid, threads[i].detail,
                                          &threads[i].w, &err) != ATF_OK)
            return die(err.message, in.lineno);
    read_symbols(&in, sw);

    uint8_t *payload = NULL;
    if (write_events(&in, &payload))
        return 1;
    free(payload);
    free(in.line);
    fclose(in.f);

    /* ---- 3. Finish: footers, final headers, final manifest ---------------- */
    /* YOUR WRITER: finalize. A session that is not finalized is reported as
     * crash-truncated (REC-001) and fails the kit. */
    if (atf_session_writer_finalize(sw, 0, &err) != ATF_OK)
        return die(err.message, in.lineno);
    atf_session_writer_close(sw);
    return 0;
}
