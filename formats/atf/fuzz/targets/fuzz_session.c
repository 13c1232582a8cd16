/* Target session: a whole session directory (manifest.json + thread_K/
 * index.atf + detail.atf), packed into one input with the session container
 * of fuzz/README.md and unpacked into a private directory on tmpfs.
 *
 * Properties:
 *  - atf_session_open() fails with a proper error record, and then `atf
 *    dump` and `atf info` fail with the same status;
 *  - an open session: threads sorted by unique id, layouts of a thread's
 *    two files agree, every reader satisfies the file-level invariants
 *    (fuzz_atf_models.c), forward and backward links resolve exactly when they
 *    point inside the other file;
 *  - the cross-thread merge equals a reference merge, is a permutation of
 *    all events, and is sorted when every thread is;
 *  - the canonical dump prints one valid JSON object per index event, in
 *    (thread, seq) order, with a nested "detail" exactly when the link
 *    resolves; a thread directory dumps exactly the session's lines of that
 *    thread; text dumps, `atf merge` and the dumps of lone files print one
 *    line per event (a symbol can never break a line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <atf/tools.h>

#include "fuzz_atf.h"

static char *capture(atf_status (*fn)(FILE *, const char *, const atf_tool_options *, atf_error *),
                     const char *dir, const atf_tool_options *o, atf_status *st, atf_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    FZ_CHECK(out != NULL, "open_memstream");
    *st = fn(out, dir, o, err);
    fclose(out);
    return buf;
}

/* What a tool must return for a thread's files (atf/tools.h): damaged files
 * and files that could not be read are reported, and the rest is read. */
static int index_damaged(const atf_session_thread *t)
{
    return t->index && atf_index_reader_info(t->index)->state == ATF_FILE_DAMAGED;
}

static int detail_damaged(const atf_session_thread *t)
{
    return t->detail && atf_detail_reader_info(t->detail)->state == ATF_FILE_DAMAGED;
}

static atf_status thread_want(const atf_session_thread *t)
{
    if (t->status)
        return t->status == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED;
    return index_damaged(t) || detail_damaged(t) ? ATF_E_DAMAGED : ATF_OK;
}

static atf_status worse(atf_status a, atf_status b)
{
    int ra = a == ATF_E_IO ? 2 : a != ATF_OK, rb = b == ATF_E_IO ? 2 : b != ATF_OK;
    return rb > ra ? b : a;
}

/* Lines a session dump has for thread t: its index events, or its detail
 * events when only the detail lane could be read. */
static uint64_t thread_lines(const atf_session_thread *t)
{
    return t->index ? atf_index_reader_count(t->index) : t->detail ? atf_detail_reader_count(t->detail) : 0;
}

static void check_links(const atf_session_thread *t)
{
    uint64_t n = atf_index_reader_count(t->index);
    uint64_t nd = t->detail ? atf_detail_reader_count(t->detail) : 0;
    for (uint64_t seq = 0; seq < n; seq++) {
        atf_index_event e;
        atf_detail_event d;
        FZ_CHECK(atf_index_reader_get(t->index, seq, &e) == ATF_OK, "get");
        if (!t->detail)
            continue;
        atf_status st = atf_detail_reader_follow(t->detail, &e, &d);
        if (e.detail_seq == ATF_NO_DETAIL)
            FZ_CHECK(st == ATF_E_NOT_FOUND, "follow without a link");
        else if (e.detail_seq >= nd)
            FZ_CHECK(st == ATF_E_RANGE, "follow past the detail file");
        else
            FZ_CHECK(st == ATF_OK && atf_detail_reader_offset(t->detail, e.detail_seq) != UINT64_MAX, "follow");
    }
    for (uint64_t ds = 0; ds < nd; ds++) {
        atf_detail_event d;
        atf_index_event e;
        FZ_CHECK(atf_detail_reader_get(t->detail, ds, &d) == ATF_OK, "detail get");
        atf_status st = atf_index_reader_follow(t->index, &d, &e);
        FZ_CHECK(d.index_seq < n ? st == ATF_OK : st == ATF_E_RANGE, "backward follow of detail %llu",
                 (unsigned long long)ds);
    }
}

/* Checks the session dump; sets starts[i] / ends[i] to the byte range of
 * thread i's lines. */
static void check_dump(const atf_session *s, const char *text, size_t *starts, size_t *ends)
{
    const char *line = text;
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        uint64_t n = thread_lines(t);
        starts[i] = (size_t)(line - text);
        if (!t->index) {   /* the detail lane alone */
            for (uint64_t k = 0; k < n; k++) {
                const char *nl = strchr(line, '\n');
                FZ_CHECK(nl != NULL && strncmp(line, "{\"thread\":", 10) == 0, "lone detail line");
                line = nl + 1;
            }
            ends[i] = (size_t)(line - text);
            continue;
        }
        for (uint64_t seq = 0; seq < n; seq++) {
            const char *nl = strchr(line, '\n');
            FZ_CHECK(nl != NULL, "dump has fewer lines than events (thread %llu seq %llu)",
                     (unsigned long long)t->id, (unsigned long long)seq);
            json_error_t jerr;
            /* u64 values above 2^63 are valid JSON that jansson only reads as reals. */
            json_t *o = json_loadb(line, (size_t)(nl - line), JSON_DECODE_INT_AS_REAL, &jerr);
            FZ_CHECK(json_is_object(o), "dump line is not a JSON object: %s: %.*s", jerr.text, (int)(nl - line),
                     line);
            double th = json_number_value(json_object_get(o, "thread"));
            double sq = json_number_value(json_object_get(o, "seq"));
            FZ_CHECK(th == (double)t->id, "dump thread");
            FZ_CHECK(sq == (double)seq, "dump seq");
            atf_index_event e;
            atf_index_reader_get(t->index, seq, &e);
            int linked = t->detail && e.detail_seq != ATF_NO_DETAIL && e.detail_seq < atf_detail_reader_count(t->detail);
            FZ_CHECK((json_object_get(o, "detail") != NULL) == linked, "nested detail iff the link resolves");
            FZ_CHECK(json_is_null(json_object_get(o, "detail_seq")) == (e.detail_seq == ATF_NO_DETAIL), "detail_seq null");
            json_decref(o);
            line = nl + 1;
        }
        ends[i] = (size_t)(line - text);
    }
    FZ_CHECK(*line == '\0', "dump has more lines than events");
}

static uint64_t count_lines(const char *s)
{
    uint64_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A thread directory dumps exactly the session's lines of that thread
 * (docs/dump-format.md); the text dump and the dumps of its files alone have
 * one line per event. */
static void check_thread_dumps(const atf_session_thread *t, const char *session_dump, size_t start, size_t end,
                               const atf_tool_options *json)
{
    atf_tool_options text = *json;
    text.json = 0;
    atf_status st;
    atf_error err;
    const atf_status tw = thread_want(t), iw = index_damaged(t) ? ATF_E_DAMAGED : ATF_OK,
                     dw = detail_damaged(t) ? ATF_E_DAMAGED : ATF_OK;
    if (!t->index) {
        /* A directory left with no file yet (SPEC 7a.12): in its session a
         * thread of 0 events, and given alone the same (ATF_OK, nothing
         * printed; stderr would say crash-truncated). */
        char *none = capture(atf_tool_dump, t->dir, json, &st, &err);
        FZ_CHECK(!t->detail && end == start && st == ATF_OK && none[0] == '\0',
                 "thread %llu without files: %zu session bytes, dump alone %s", (unsigned long long)t->id,
                 end - start, atf_status_name(st));
        free(none);
        return;
    }
    uint64_t n = atf_index_reader_count(t->index);
    char *out = capture(atf_tool_dump, t->dir, json, &st, &err);
    FZ_CHECK(st == tw && strlen(out) == end - start && memcmp(out, session_dump + start, end - start) == 0,
             "thread %llu: `atf dump --json %s` differs from the session's lines (%s)", (unsigned long long)t->id,
             t->dir, st ? err.message : "");
    free(out);
    out = capture(atf_tool_dump, t->dir, &text, &st, &err);
    FZ_CHECK(st == tw && count_lines(out) == n, "text dump of thread %llu: %llu lines for %llu events",
             (unsigned long long)t->id, (unsigned long long)count_lines(out), (unsigned long long)n);
    free(out);
    char path[800];
    snprintf(path, sizeof path, "%s/index.atf", t->dir);
    out = capture(atf_tool_dump, path, json, &st, &err);
    FZ_CHECK(st == iw && count_lines(out) == n, "dump of %s alone", path);
    free(out);
    if (t->detail) {
        uint64_t nd = atf_detail_reader_count(t->detail);
        snprintf(path, sizeof path, "%s/detail.atf", t->dir);
        out = capture(atf_tool_dump, path, json, &st, &err);
        FZ_CHECK(st == dw && count_lines(out) == nd, "dump of %s alone: %llu detail events", path,
                 (unsigned long long)nd);
        free(out);
        out = capture(atf_tool_dump, path, &text, &st, &err);
        FZ_CHECK(st == dw && count_lines(out) == nd, "text dump of %s alone", path);
        free(out);
    }
    out = capture(atf_tool_info, t->dir, &text, &st, &err);
    FZ_CHECK(st == tw, "info of thread %llu: %s", (unsigned long long)t->id, err.message);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_fresh_dir("session");
    fz_container_unpack(data, size, dir);
    fz_params p = fz_params_overlay(data, size);
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = fz_u8(&p) % 4 != 0;
    ro.no_mmap = fz_bool(&p);
    atf_tool_options to = ATF_TOOL_OPTIONS_INIT;
    to.json = 1;
    to.no_verify = !ro.verify;

    atf_session *s = NULL;
    atf_error err, derr;
    atf_status st = atf_session_open(&s, dir, &ro, &err), dst;
    char *dump = capture(atf_tool_dump, dir, &to, &dst, &derr);
    if (st) {
        fz_check_error(&err, st, "session open");
        FZ_CHECK(s == NULL && err.file[0], "failed open: session or file");
        FZ_CHECK(dst == st, "dump returned %s, session open %s", atf_status_name(dst), atf_status_name(st));
        free(dump);
        char *info = capture(atf_tool_info, dir, &to, &dst, &derr);
        FZ_CHECK(dst == st, "info returned %s, session open %s", atf_status_name(dst), atf_status_name(st));
        free(info);
        return 0;
    }
    /* One bad file never costs the others: the dump reads every readable
     * thread and says what was damaged or unreadable in its status. */
    atf_status want = atf_session_manifest_error(s)
                          ? (atf_session_manifest_error(s)->code == ATF_E_IO ? ATF_E_IO : ATF_E_DAMAGED)
                          : ATF_OK;
    for (size_t i = 0; i < atf_session_thread_count(s); i++)
        want = worse(want, thread_want(atf_session_thread_at(s, i)));
    FZ_CHECK(dst == want, "dump returned %s, the session says %s: %s", atf_status_name(dst), atf_status_name(want),
             derr.message);
    uint64_t total = 0, lines = 0;
    for (size_t i = 0; i < atf_session_thread_count(s); i++) {
        const atf_session_thread *t = atf_session_thread_at(s, i);
        lines += thread_lines(t);
        if (!t->index)
            continue;
        size_t n;
        const uint8_t *b = atf_index_reader_bytes(t->index, &n);
        fz_check_index_reader(t->index, b, n, &p);
        total += atf_index_reader_count(t->index);
        if (t->detail) {
            b = atf_detail_reader_bytes(t->detail, &n);
            fz_check_detail_reader(t->detail, b, n, ro.verify, &p);
            /* A file cut before its layout byte (SPEC 7a.12: an empty
             * detail.atf among them) has none to compare. */
            size_t ni;
            atf_index_reader_bytes(t->index, &ni);
            atf_layout dl = atf_detail_reader_info(t->detail)->layout;
            FZ_CHECK(ni < 6 || dl == 0 || dl == atf_index_reader_info(t->index)->layout,
                     "a thread with two layouts was opened");
        }
        check_links(t);
    }
    const atf_manifest *m = atf_session_manifest(s);
    for (size_t i = 0; m && i < m->thread_count; i++) {
        int found = 0;
        for (size_t j = 0; j < atf_session_thread_count(s); j++)
            found |= atf_session_thread_at(s, j)->id == m->threads[i].id;
        FZ_CHECK(found, "manifest thread %llu missing from the session", (unsigned long long)m->threads[i].id);
    }
    FZ_CHECK(fz_check_merge(s) == total, "merge count");
    size_t k = atf_session_thread_count(s);
    size_t *starts = calloc(k + 1, sizeof *starts), *ends = calloc(k + 1, sizeof *ends);
    FZ_CHECK(starts && ends, "oom");
    check_dump(s, dump, starts, ends);
    for (size_t i = 0; i < k; i++)
        if (!atf_session_thread_at(s, i)->status)
            check_thread_dumps(atf_session_thread_at(s, i), dump, starts[i], ends[i], &to);
    free(starts);
    free(ends);
    free(dump);
    atf_tool_options text = to;
    text.json = 0;
    char *tdump = capture(atf_tool_dump, dir, &text, &dst, &derr);
    FZ_CHECK(dst == want && count_lines(tdump) == lines, "text dump: %llu lines for %llu events",
             (unsigned long long)count_lines(tdump), (unsigned long long)lines);
    free(tdump);
    tdump = capture(atf_tool_merge, dir, &text, &dst, &derr);
    FZ_CHECK(dst == want && count_lines(tdump) == total, "text merge");
    free(tdump);

    char *merged = capture(atf_tool_merge, dir, &to, &dst, &derr);
    FZ_CHECK(dst == want && count_lines(merged) == total, "atf merge --json: %s, %llu lines for %llu events",
             atf_status_name(dst), (unsigned long long)count_lines(merged), (unsigned long long)total);
    free(merged);
    char *info = capture(atf_tool_info, dir, &to, &dst, &derr);
    FZ_CHECK(dst == want, "atf info on an open session: %s, want %s", atf_status_name(dst), atf_status_name(want));
    free(info);
    atf_session_close(s);
    return 0;
}
