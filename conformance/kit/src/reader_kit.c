/* The reader kit (`atf conform --reader CMD`): runs reader commands over the
 * golden corpus and grades each outcome in the manner of JSONTestSuite.
 *
 * A reader prints the canonical dump of the path it is given (exit 0:
 * accepted) or exits non-zero (rejected). Its stdout is compared with the
 * expected dump as it arrives, so memory stays bounded by the expected dump
 * (a file of the corpus) whatever the reader prints. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <atf/conform.h>

#include "kit_internal.h"

#define MAX_DUMP_BYTES (512u * 1024u * 1024u)
#define SNIP 160

/* Clauses whose breach leaves a reader nothing it can decode without
 * guessing: where the events are, how wide their fields are, which bytes
 * belong to which event, or whether the bytes are the ones written. A reader
 * MUST reject inputs that break them (README: "Grading"). */
static const char *const MUST_REJECT[] = {
    "IDX-HDR-001", "IDX-HDR-002", "IDX-HDR-003", "IDX-HDR-009", "IDX-HDR-010", "IDX-FTR-001",
    "DET-HDR-001", "DET-HDR-002", "DET-HDR-003", "DET-HDR-006", "DET-EVT-001", "DET-EVT-002",
    "DET-FTR-001", "DET-FTR-002", "CRC-001",     "CRC-002",
};

enum { CLS_VALID, CLS_INVALID, CLS_RECOVERABLE, CLS_IMPL, CLS_COUNT };
static const char *const CLASS_NAMES[CLS_COUNT] = { "valid", "invalid", "recoverable", "implementation-defined" };
static const char CLASS_PREFIX[CLS_COUNT] = { 'y', 'n', 'r', 'i' };

enum { OUT_ACCEPTED, OUT_REJECTED, OUT_CRASHED, OUT_TIMEOUT, OUT_ERROR, OUT_NOT_GRADED, OUT_COUNT };
static const char *const OUTCOME_NAMES[] = { "accepted", "rejected", "crashed", "timed out", "not run", "not graded" };
static const char *const OUTCOME_KEYS[] = { "accepted", "rejected", "crashed", "timeout", "error", "not-graded" };

/* RES_NOT_GRADED: outside what the reader declares (`CMD --capabilities`):
 * not run, neither right nor wrong, counted apart. */
enum { RES_RIGHT, RES_TOLERATED, RES_WRONG, RES_NOT_GRADED, RES_COUNT };
static const char *const RESULT_NAMES[] = { "right", "tolerated", "wrong", "not-graded" };

/* What a reader declares it reads (README, "Reader capabilities"). */
typedef struct reader_caps {
    int declared;
    uint32_t layouts;        /* bit V: layout V */
    int detail, manifest;
    char text[120];
} reader_caps;

typedef struct corpus_case {
    char *name;
    int cls;
    char *target;            /* relative to the case directory */
    char *path;              /* corpus/NAME/target */
    int conformant;          /* verdict */
    char *dump;              /* expected dump file (path), or NULL */
    char *must_reject_clause; /* first error clause of MUST_REJECT, or NULL */
    char *errors;            /* error clauses, space-separated ("" if none) */
    uint32_t layouts;        /* the expect file's "layouts" (bit V), 0: not given */
    int detail_files;        /* 0 none, 1 the input holds detail.atf files, 2 the target is one */
    int manifest;            /* the input holds a manifest.json */
} corpus_case;

typedef struct case_result {
    int outcome;
    int result;
    int exit_code, signal;
    double seconds;
    int dump_state;          /* 0 not compared, 1 equal, 2 differs */
    uint64_t out_bytes;
    char note[512];
    char err_head[SNIP + 1];
} case_result;

/* ---- Streaming comparison of stdout with the expected dump ---------------- */

typedef struct cmp_state {
    const char *exp;
    size_t exp_len;
    size_t pos;              /* bytes of stdout seen while equal */
    size_t line_start;       /* offset in exp of the current line */
    uint64_t line_no;        /* 1-based */
    int differs;
    int collecting;          /* after a difference: still collecting the actual line */
    char got[SNIP + 1];
    size_t got_len;
    uint64_t diff_line;
    size_t diff_line_start;
    size_t diff_pos;         /* offset in exp of the first differing byte */
    size_t got_from;         /* offset in exp where got[] starts (a window before the difference) */
} cmp_state;

#define DIFF_BEFORE 48       /* bytes shown before the first difference, on each side */

static void got_append(cmp_state *c, const char *s, size_t n)
{
    size_t room = SNIP - c->got_len;
    size_t k = n < room ? n : room;
    memcpy(c->got + c->got_len, s, k);
    c->got_len += k;
    c->got[c->got_len] = '\0';
}

static int cmp_sink(void *user, const void *data, size_t n)
{
    cmp_state *c = user;
    const char *d = data;
    size_t i = 0;
    if (!c->differs) {
        for (; i < n; i++) {
            if (c->pos == c->exp_len || d[i] != c->exp[c->pos])
                break;
            if (d[i] == '\n') {
                c->line_no++;
                c->line_start = c->pos + 1;
            }
            c->pos++;
        }
        if (i == n)
            return 0;
        c->differs = 1;
        c->collecting = 1;
        c->diff_line = c->line_no;
        c->diff_line_start = c->line_start;
        c->diff_pos = c->pos;
        c->got_from = c->pos - c->line_start > DIFF_BEFORE ? c->pos - DIFF_BEFORE : c->line_start;
        got_append(c, c->exp + c->got_from, c->pos - c->got_from);
    }
    if (c->collecting) {
        const char *nl = memchr(d + i, '\n', n - i);
        size_t k = nl ? (size_t)(nl - (d + i)) : n - i;
        got_append(c, d + i, k);
        if (nl || c->got_len == SNIP)
            c->collecting = 0;
    }
    return 0;   /* keep draining either way */
}

static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* The note of a differing dump: the line and column of the first differing
 * byte, and on each side a window of the line around it (up to DIFF_BEFORE
 * bytes before, the rest after), so that both differing bytes are shown. */
static void describe_diff(const cmp_state *c, char *dst, size_t cap)
{
    char want[SNIP + 32] = "<end of output>", got[SNIP + 32];
    size_t ls = c->differs ? c->diff_line_start : c->line_start;
    size_t at = c->differs ? c->diff_pos : c->pos;
    size_t from = c->differs ? c->got_from : (at - ls > DIFF_BEFORE ? at - DIFF_BEFORE : ls);
    if (at < c->exp_len) {
        const char *nl = memchr(c->exp + from, '\n', c->exp_len - from);
        size_t n = nl ? (size_t)(nl - (c->exp + from)) : c->exp_len - from;
        if (n > SNIP)
            n = SNIP;
        memcpy(want, c->exp + from, n);
        want[n] = '\0';
        if (n == 0 && at == from)
            snprintf(want, sizeof want, "<end of line>");
    } else if (at > from) {   /* the expected dump ends inside the window: show its end */
        size_t n = at - from > SNIP ? SNIP : at - from;
        memcpy(want, c->exp + from, n);
        snprintf(want + n, sizeof want - n, "<end of dump>");
    }
    if (c->differs)
        /* A difference is a byte the reader printed: nothing after the window's
         * start means that byte was the line's end. */
        snprintf(got, sizeof got, "%s%s", c->got, c->got_len == at - from ? "<end of line>" : "");
    else
        snprintf(got, sizeof got, "<end of output>");
    printable(want);
    printable(got);
    snprintf(dst, cap, "dump differs at line %" PRIu64 ", column %zu: expected %s%s | got %s%s",
             c->differs ? c->diff_line : c->line_no, at - ls + 1, from > ls ? "..." : "", want,
             from > ls ? "..." : "", got);
}

/* ---- Corpus ---------------------------------------------------------------- */

static void free_case(corpus_case *k)
{
    free(k->name);
    free(k->target);
    free(k->path);
    free(k->dump);
    free(k->must_reject_clause);
    free(k->errors);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int safe_relative(const char *p)
{
    if (!*p || *p == '/')
        return 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return 0;
        s += n + (e ? 1 : 0);
    }
    return 1;
}

static int selected(const atf_conform_reader_options *o, const char *name)
{
    if (!o->case_count)
        return 1;
    for (size_t i = 0; i < o->case_count; i++) {
        size_t n = strlen(o->cases[i]);
        if (!strcmp(name, o->cases[i]) || (n && !strncmp(name, o->cases[i], n)))
            return 1;
    }
    return 0;
}

/* What a case's input holds: detail.atf files, manifest.json (a directory
 * tree is walked a few levels deep; corpus cases are small). */
static void scan_input(const char *path, int depth, int *detail, int *manifest)
{
    struct stat st;
    if (depth > 5 || lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (!strcmp(base, "detail.atf"))
            *detail = 1;
        else if (!strcmp(base, "manifest.json"))
            *manifest = 1;
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *sub = atf_path_join(path, e->d_name);
        if (sub)
            scan_input(sub, depth + 1, detail, manifest);
        free(sub);
    }
    closedir(d);
}

/* What is wrong with the expect file's object (root) of case `file` (its
 * name has `stem` bytes before .expect.json), or NULL; sets k->cls. */
static const char *expect_problem(json_t *root, const char *file, size_t stem, corpus_case *k)
{
    json_t *jcase = json_object_get(root, "case"), *jcls = json_object_get(root, "class"),
           *jtarget = json_object_get(root, "target"), *jverdict = json_object_get(root, "verdict"),
           *jdump = json_object_get(root, "dump"), *jerr = json_object_get(root, "error_clauses");
    if (!json_is_object(root))
        return "not a JSON object";
    if (!json_is_string(jcase) || strlen(json_string_value(jcase)) != stem ||
        strncmp(json_string_value(jcase), file, stem) != 0)
        return "\"case\" must be the file's name without .expect.json";
    if (!json_is_string(jcls))
        return "\"class\" is missing";
    if (!json_is_string(jtarget) || !safe_relative(json_string_value(jtarget)))
        return "\"target\" must be a relative path inside the case directory";
    if (!json_is_string(jverdict) || (strcmp(json_string_value(jverdict), "conformant") != 0 &&
                                      strcmp(json_string_value(jverdict), "nonconformant") != 0))
        return "\"verdict\" must be conformant or nonconformant";
    if (!(json_is_null(jdump) || (json_is_string(jdump) && safe_relative(json_string_value(jdump)))))
        return "\"dump\" must be null or a file name";
    if (jerr && !json_is_array(jerr))
        return "\"error_clauses\" must be an array";
    k->cls = -1;
    for (int c = 0; c < CLS_COUNT; c++)
        if (!strcmp(json_string_value(jcls), CLASS_NAMES[c]))
            k->cls = c;
    if (k->cls < 0)
        return "\"class\" must be valid, invalid, recoverable or implementation-defined";
    if (file[0] != CLASS_PREFIX[k->cls])
        return "the name's prefix (y_, n_, r_, i_) disagrees with \"class\"";
    if ((k->cls == CLS_VALID || k->cls == CLS_RECOVERABLE) &&
        (strcmp(json_string_value(jverdict), "conformant") != 0 || !json_is_string(jdump)))
        return "a valid or recoverable case must be conformant with an expected dump";
    if (k->cls == CLS_INVALID && strcmp(json_string_value(jverdict), "nonconformant") != 0)
        return "an invalid case must be nonconformant";
    return NULL;
}

/* The case's expected layouts and error clauses (space-separated), and the
 * first clause a reader must reject on. */
static void case_clauses(corpus_case *k, json_t *root)
{
    json_t *jerr = json_object_get(root, "error_clauses");
    json_t *jlayouts = json_object_get(root, "layouts");
    for (size_t i = 0; json_is_array(jlayouts) && i < json_array_size(jlayouts); i++) {
        json_int_t v = json_integer_value(json_array_get(jlayouts, i));
        if (v >= 1 && v <= 31)
            k->layouts |= 1u << v;
    }
    size_t elen = 1;
    for (size_t i = 0; jerr && i < json_array_size(jerr); i++) {
        json_t *c = json_array_get(jerr, i);
        if (json_is_string(c))
            elen += strlen(json_string_value(c)) + 1;
    }
    k->errors = calloc(1, elen);
    for (size_t i = 0; jerr && k->errors && i < json_array_size(jerr); i++) {
        json_t *c = json_array_get(jerr, i);
        if (!json_is_string(c))
            continue;
        const char *id = json_string_value(c);
        if (k->errors[0])
            strcat(k->errors, " ");
        strcat(k->errors, id);
        for (size_t m = 0; m < sizeof MUST_REJECT / sizeof MUST_REJECT[0]; m++)
            if (!k->must_reject_clause && !strcmp(id, MUST_REJECT[m]))
                k->must_reject_clause = kit_strdup(id);
    }
}

/* Loads one expect file. Returns 0, or -1 with err filled. */
static int load_case(const char *dir, const char *file, corpus_case *k, atf_error *err)
{
    memset(k, 0, sizeof *k);
    char *path = atf_path_join(dir, file);
    if (!path) {
        atf_fail_file(err, ATF_E_NOMEM, file, "out of memory");
        return -1;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        atf_fail_file(err, ATF_E_FIELD, path, "not valid JSON: line %d: %s", je.line, je.text);
        free(path);
        return -1;
    }
    size_t stem = strlen(file) - strlen(".expect.json");
    const char *why = expect_problem(root, file, stem, k);
    if (why) {
        atf_fail_file(err, ATF_E_FIELD, path, "%s", why);
        json_decref(root);
        free(path);
        return -1;
    }
    json_t *jdump = json_object_get(root, "dump");
    k->name = kit_sprintf("%.*s", (int)stem, file);
    k->target = kit_strdup(json_string_value(json_object_get(root, "target")));
    k->path = kit_sprintf("%s/%s/%s", dir, k->name ? k->name : "", k->target ? k->target : "");
    k->conformant = !strcmp(json_string_value(json_object_get(root, "verdict")), "conformant");
    k->dump = json_is_string(jdump) ? atf_path_join(dir, json_string_value(jdump)) : NULL;
    case_clauses(k, root);
    int want_dump = json_is_string(jdump);
    struct stat st;
    if (k->path && stat(k->path, &st) != 0) {
        atf_fail_file(err, ATF_E_NOT_FOUND, path, "target %s: %s", k->path, strerror(errno));
        json_decref(root);
        free(path);
        free_case(k);
        return -1;
    }
    /* A case without its expected dump is a broken corpus, not a wrong reader. */
    if (want_dump && k->dump &&
        (stat(k->dump, &st) != 0 || !S_ISREG(st.st_mode) || access(k->dump, R_OK) != 0)) {
        int e = errno;
        atf_fail_file(err, ATF_E_NOT_FOUND, path, "broken corpus: the expected dump %s %s",
                        json_string_value(jdump),
                        stat(k->dump, &st) == 0 && !S_ISREG(st.st_mode) ? "is not a regular file" : strerror(e));
        json_decref(root);
        free(path);
        free_case(k);
        return -1;
    }
    json_decref(root);
    free(path);
    if (k->path) {
        const char *base = strrchr(k->target, '/');
        base = base ? base + 1 : k->target;
        scan_input(k->path, 0, &k->detail_files, &k->manifest);
        if (!strcmp(base, "detail.atf"))
            k->detail_files = 2;
    }
    if (!k->name || !k->target || !k->path || !k->errors || (want_dump && !k->dump)) {
        free_case(k);
        atf_fail_file(err, ATF_E_NOMEM, file, "out of memory");
        return -1;
    }
    return 0;
}

static int load_corpus(const atf_conform_reader_options *o, corpus_case **out, size_t *count, atf_error *err)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(o->corpus_dir);
    if (!d) {
        atf_fail_file(err, ATF_E_IO, o->corpus_dir, "cannot open the corpus directory: %s", strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    const char *suffix = ".expect.json";
    size_t sl = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= sl || strcmp(e->d_name + l - sl, suffix) != 0)
            continue;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(l - sl), e->d_name);
        if (!selected(o, stem))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 256;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn)
                break;
            names = nn;
            cap = nc;
        }
        if (!(names[n] = kit_strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    corpus_case *cases = calloc(n ? n : 1, sizeof *cases);
    int rc = 0;
    size_t loaded = 0;
    if (!cases) {
        atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (load_case(o->corpus_dir, names[i], &cases[loaded], err) != 0)
            rc = -1;
        else
            loaded++;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc == 0 && loaded == 0) {
        atf_fail_file(err, ATF_E_NOT_FOUND, o->corpus_dir, o->case_count ? "no corpus case matches"
                                                                           : "no *.expect.json files: not a corpus");
        rc = -1;
    }
    if (rc) {
        for (size_t i = 0; i < loaded; i++)
            free_case(&cases[i]);
        free(cases);
        return -1;
    }
    *out = cases;
    *count = loaded;
    return 0;
}

/* Reads the expected dump (bounded). Returns a malloc'd buffer or NULL. */
static char *read_dump(const char *path, size_t *len, char *why, size_t why_cap)
{
    char reason[160];
    FILE *f = kit_fopen_regular(path, reason, sizeof reason);
    if (!f) {
        snprintf(why, why_cap, "the expected dump %s: %s", path, reason);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > MAX_DUMP_BYTES) {
        snprintf(why, why_cap, "the expected dump %s is unreadable or larger than %u MiB", path,
                 MAX_DUMP_BYTES >> 20);
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (!buf || fread(buf, 1, n, f) != n) {
        snprintf(why, why_cap, "cannot read the expected dump %s", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Removes every `,"detail":{...}` member (the detail object of an index
 * event, docs/dump-format.md) from the dump in place: what a reader that
 * declares no detail lanes prints. Strings are skipped as JSON strings. */
static size_t strip_detail(char *buf, size_t n)
{
    static const char key[] = ",\"detail\":{";
    const size_t klen = sizeof key - 1;
    size_t r = 0, w = 0;
    int in_str = 0;
    while (r < n) {
        char ch = buf[r];
        if (in_str) {
            buf[w++] = ch;
            r++;
            if (ch == '\\' && r < n)
                buf[w++] = buf[r++];
            else if (ch == '"')
                in_str = 0;
            continue;
        }
        if (ch == ',' && n - r >= klen && !memcmp(buf + r, key, klen)) {
            size_t q = r + klen;
            int depth = 1, str = 0;
            for (; q < n && depth; q++) {
                if (str) {
                    if (buf[q] == '\\')
                        q++;
                    else if (buf[q] == '"')
                        str = 0;
                } else if (buf[q] == '"') {
                    str = 1;
                } else if (buf[q] == '{') {
                    depth++;
                } else if (buf[q] == '}') {
                    depth--;
                } else if (buf[q] == '\n') {
                    break;   /* malformed: leave the line as it is */
                }
            }
            if (!depth) {
                r = q;
                continue;
            }
        }
        if (ch == '"')
            in_str = 1;
        buf[w++] = ch;
        r++;
    }
    return w;
}

/* Asks a reader what it reads (`CMD --capabilities`, 10 s). A reader that
 * exits non-zero or prints something else declares nothing: everything is
 * graded. Returns 0, or -1 (err) for a malformed declaration. */
static int query_reader_caps(const char *cmd, reader_caps *k, atf_error *err)
{
    memset(k, 0, sizeof *k);
    k->layouts = ~0u;
    k->detail = k->manifest = 1;
    kit_proc_result pr;
    const char *args[1] = { "--capabilities" };
    static const char head[] = "atf-reader-capabilities";
    if (kit_proc_run(cmd, args, 1, 10.0, NULL, NULL, &pr) != 0 || pr.state != KIT_PROC_EXITED ||
        pr.exit_code != 0 || strncmp(pr.out_head, head, sizeof head - 1) != 0)
        return 0;
    k->declared = 1;
    char why[200] = "";
    unsigned line_no = 0;
    int first = 1;
    char *save_line = NULL;
    if (pr.out_total > KIT_PROC_HEAD)
        snprintf(why, sizeof why, "longer than %u bytes", (unsigned)KIT_PROC_HEAD);
    for (char *line = why[0] ? NULL : strtok_r(pr.out_head, "\n", &save_line); line && !why[0];
         line = strtok_r(NULL, "\n", &save_line)) {
        line_no++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[len - 1] = '\0';
        char *save = NULL, *key = strtok_r(line, " \t", &save);
        if (!key || key[0] == '#')
            continue;
        char *v = strtok_r(NULL, " \t", &save);
        if (first) {
            if (strcmp(key, head) || !v || strcmp(v, "1"))
                snprintf(why, sizeof why, "line %u: the first record must be `%s 1`", line_no, head);
            first = 0;
        } else if (!strcmp(key, "layouts")) {
            k->layouts = 0;
            for (; v; v = strtok_r(NULL, " \t", &save)) {
                if (strcmp(v, "1") && strcmp(v, "2")) {
                    snprintf(why, sizeof why, "line %u: layouts takes 1 and/or 2, not '%.20s'", line_no, v);
                    break;
                }
                k->layouts |= 1u << (v[0] - '0');
            }
            if (!k->layouts && !why[0])
                snprintf(why, sizeof why, "line %u: layouts lists no value", line_no);
        } else if (!strcmp(key, "detail") || !strcmp(key, "manifest")) {
            if (!v || (strcmp(v, "yes") && strcmp(v, "no")) || strtok_r(NULL, " \t", &save))
                snprintf(why, sizeof why, "line %u: %s takes yes or no", line_no, key);
            else
                *(!strcmp(key, "detail") ? &k->detail : &k->manifest) = !strcmp(v, "yes");
        } else {
            snprintf(why, sizeof why, "line %u: unknown record '%.40s'", line_no, key);
        }
    }
    if (why[0]) {
        atf_fail_file(err, ATF_E_FIELD, NULL, "the reader's capability declaration (%.200s --capabilities): %s",
                        cmd, why);
        return -1;
    }
    snprintf(k->text, sizeof k->text, "layouts%s%s, detail lanes %s, manifest %s",
             k->layouts & 2u ? " 1" : "", k->layouts & 4u ? " 2" : "", k->detail ? "yes" : "no",
             k->manifest ? "yes" : "no");
    return 0;
}

/* 1 if case @k is inside what the reader declares; else why[] says why not. */
static int graded(const reader_caps *c, const corpus_case *k, char *why, size_t cap)
{
    if (!c->declared)
        return 1;
    if (k->layouts && (k->layouts & ~c->layouts))
        snprintf(why, cap, "not graded: a layout the reader does not declare");
    else if (!c->manifest && k->manifest)
        snprintf(why, cap, "not graded: the input has a manifest.json and the reader declares no manifest");
    else if (!c->detail && k->detail_files == 2)
        snprintf(why, cap, "not graded: a detail file, and the reader declares no detail lanes");
    else if (!c->detail && k->detail_files && k->cls != CLS_VALID && k->cls != CLS_RECOVERABLE)
        snprintf(why, cap, "not graded: the input has detail files (what is wrong may be in them) and the reader "
                 "declares no detail lanes");
    else
        return 1;
    return 0;
}

/* ---- Running and grading ---------------------------------------------------- */

/* One reader run on one case: the expected dump, the streaming comparison
 * and the process. It stays in place while the process runs (the sink
 * points into it). */
typedef struct slot {
    int busy;
    size_t run;              /* index into the results: case * readers + reader */
    char *exp;
    cmp_state cs;
    kit_proc proc;
    kit_proc_result pr;
} slot;

/* Grades a finished run (README, "Grading") and releases its expected dump. */
static void case_end(const atf_conform_reader_options *o, const corpus_case *k, case_result *r, slot *s)
{
    const kit_proc_result *pr = &s->pr;
    r->seconds = pr->seconds;
    r->out_bytes = pr->out_total;
    memcpy(r->err_head, pr->err_head, SNIP);   /* the first bytes; err_head is NUL-terminated */
    r->err_head[SNIP] = '\0';
    printable(r->err_head);
    switch (pr->state) {
    case KIT_PROC_EXITED:
        r->outcome = pr->exit_code == 0 ? OUT_ACCEPTED : OUT_REJECTED;
        r->exit_code = pr->exit_code;
        break;
    case KIT_PROC_SIGNALED:
        r->outcome = OUT_CRASHED;
        r->signal = pr->signal;
        break;
    case KIT_PROC_TIMEOUT:
        r->outcome = OUT_TIMEOUT;
        break;
    default:
        r->outcome = OUT_ERROR;
        break;
    }
    if (r->outcome == OUT_ACCEPTED && s->exp) {
        int equal = !s->cs.differs && s->cs.pos == s->cs.exp_len;
        r->dump_state = equal ? 1 : 2;
        if (!equal)
            describe_diff(&s->cs, r->note, sizeof r->note);
    }
    char what[300];
    kit_proc_describe(pr, what, sizeof what);
    if (r->outcome == OUT_CRASHED || r->outcome == OUT_TIMEOUT || r->outcome == OUT_ERROR) {
        r->result = RES_WRONG;
        snprintf(r->note, sizeof r->note, "%s", what);
    } else if (k->cls == CLS_VALID || k->cls == CLS_RECOVERABLE) {
        if (r->outcome == OUT_REJECTED) {
            r->result = RES_WRONG;
            snprintf(r->note, sizeof r->note, "rejected %s input (%s)", CLASS_NAMES[k->cls], what);
        } else {
            r->result = r->dump_state == 1 ? RES_RIGHT : RES_WRONG;
        }
    } else if (k->cls == CLS_INVALID) {
        if (r->outcome == OUT_REJECTED) {
            r->result = RES_RIGHT;
        } else if (k->must_reject_clause) {
            r->result = RES_WRONG;
            snprintf(r->note, sizeof r->note, "accepted undecodable input (%s): a reader must reject it",
                     k->must_reject_clause);
        } else {
            r->result = o->strict ? RES_WRONG : RES_TOLERATED;
            snprintf(r->note, sizeof r->note, "accepted nonconformant input (%s)%s", k->errors,
                     o->strict ? " [--strict]" : "");
        }
    } else { /* implementation-defined: either is right, but an accepted input must be dumped right */
        if (r->outcome == OUT_ACCEPTED && r->dump_state == 2)
            r->result = RES_WRONG;
        else
            r->result = RES_RIGHT;
        if (r->outcome == OUT_ACCEPTED && !s->exp)
            snprintf(r->note, sizeof r->note, "accepted (no expected dump: this project's validator says %s)",
                     k->conformant ? "conformant" : "nonconformant");
    }
    free(s->exp);
    s->exp = NULL;
    s->busy = 0;
}

/* Starts a run. Returns 1 when the process runs, 0 when the run is already
 * over (corpus error, or the command could not start: graded now). */
static int case_begin(const atf_conform_reader_options *o, const char *cmd, const reader_caps *caps,
                      const corpus_case *k, case_result *r, slot *s, size_t run)
{
    memset(r, 0, sizeof *r);
    memset(&s->cs, 0, sizeof s->cs);
    s->cs.line_no = 1;
    s->run = run;
    s->busy = 1;
    s->exp = NULL;
    size_t exp_len = 0;
    if (k->dump) {
        char why[300] = "";
        s->exp = read_dump(k->dump, &exp_len, why, sizeof why);
        if (!s->exp) {
            r->outcome = OUT_ERROR;
            r->result = RES_WRONG;
            snprintf(r->note, sizeof r->note, "corpus error: %s", why);
            s->busy = 0;
            return 0;
        }
    }
    if (s->exp && caps->declared && !caps->detail)   /* graded on index data only */
        exp_len = strip_detail(s->exp, exp_len);
    s->cs.exp = s->exp ? s->exp : "";
    s->cs.exp_len = exp_len;
    const char *args[1] = { k->path };
    if (kit_proc_start(&s->proc, cmd, args, 1, o->timeout_s > 0 ? o->timeout_s : 10.0, cmp_sink, &s->cs,
                       &s->pr) != 0) {
        case_end(o, k, r, s);
        return 0;
    }
    return 1;
}

static const char *expected_text(const corpus_case *k)
{
    switch (k->cls) {
    case CLS_VALID:
    case CLS_RECOVERABLE: return "accept";
    case CLS_INVALID: return k->must_reject_clause ? "reject" : "reject (should)";
    default: return "either";
    }
}

/* ---- Reports ------------------------------------------------------------------ */

typedef struct tally {
    unsigned outcome[OUT_COUNT];
    unsigned result[RES_COUNT];
    unsigned by_class[CLS_COUNT][RES_COUNT];
    unsigned class_total[CLS_COUNT];
} tally;

static void count(tally *t, const corpus_case *k, const case_result *r)
{
    t->outcome[r->outcome]++;
    t->result[r->result]++;
    t->by_class[k->cls][r->result]++;
    t->class_total[k->cls]++;
}

static const char *mark(int result)
{
    return result == RES_RIGHT || result == RES_NOT_GRADED ? "" : result == RES_TOLERATED ? "~" : "!";
}

static void text_report(FILE *out, const atf_conform_reader_options *o, const reader_caps *caps,
                        const corpus_case *cases, size_t n, const case_result *res, const tally *t)
{
    size_t R = o->reader_count;
    fprintf(out, "atf conform --reader: corpus %s, %zu case%s%s\n", o->corpus_dir, n, n == 1 ? "" : "s",
            o->strict ? ", --strict (every invalid case must be rejected)" : "");
    for (size_t j = 0; j < R; j++)
        fprintf(out, "  R%zu = %s\n", j + 1, o->readers[j]);
    fputc('\n', out);
    if (R == 1) {
        fprintf(out, "%-9s %-9s %-52s %s\n", "result", "outcome", "case", "note");
        for (size_t i = 0; i < n; i++) {
            const case_result *r = &res[i];
            const char *tag = r->result == RES_RIGHT ? "ok" : r->result == RES_TOLERATED ? "lenient"
                            : r->result == RES_NOT_GRADED ? "-" : "WRONG";
            fprintf(out, "%-9s %-9s %-52s %s\n", tag, OUTCOME_NAMES[r->outcome], cases[i].name, r->note);
        }
    } else {
        fprintf(out, "%-52s", "case");
        for (size_t j = 0; j < R; j++) {
            char h[32];
            snprintf(h, sizeof h, "R%zu", j + 1);
            fprintf(out, " %-11s", h);
        }
        fputc('\n', out);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "%-52s", cases[i].name);
            for (size_t j = 0; j < R; j++) {
                const case_result *r = &res[i * R + j];
                char cell[24];
                snprintf(cell, sizeof cell, "%s%s", OUTCOME_KEYS[r->outcome], mark(r->result));
                fprintf(out, " %-11s", cell);
            }
            fputc('\n', out);
        }
        fputs("\n(~ tolerated: accepted an invalid input that a lenient reader may decode; ! wrong)\n", out);
        for (size_t j = 0; j < R; j++)
            for (size_t i = 0; i < n; i++) {
                const case_result *r = &res[i * R + j];
                if (r->result == RES_WRONG)
                    fprintf(out, "R%zu WRONG %s: %s\n", j + 1, cases[i].name, r->note);
            }
    }
    fputc('\n', out);
    for (size_t j = 0; j < R; j++) {
        const tally *s = &t[j];
        fprintf(out, "R%zu %s\n", j + 1, o->readers[j]);
        if (caps[j].declared)
            fprintf(out, "  declares: %s\n", caps[j].text);
        for (int c = 0; c < CLS_COUNT; c++) {
            if (!s->class_total[c])
                continue;
            fprintf(out, "  %-24s %4u cases: %u right, %u tolerated, %u wrong, %u not graded\n", CLASS_NAMES[c],
                    s->class_total[c], s->by_class[c][RES_RIGHT], s->by_class[c][RES_TOLERATED],
                    s->by_class[c][RES_WRONG], s->by_class[c][RES_NOT_GRADED]);
        }
        fprintf(out, "  outcomes: %u accepted, %u rejected, %u crashed, %u timed out%s\n", s->outcome[OUT_ACCEPTED],
                s->outcome[OUT_REJECTED], s->outcome[OUT_CRASHED], s->outcome[OUT_TIMEOUT],
                s->outcome[OUT_ERROR] ? ", some not run" : "");
        fprintf(out, "reader kit: R%zu %s: %u right, %u tolerated, %u wrong, %u not graded (%zu cases)\n", j + 1,
                s->result[RES_WRONG] ? "FAIL" : "PASS", s->result[RES_RIGHT], s->result[RES_TOLERATED],
                s->result[RES_WRONG], s->result[RES_NOT_GRADED], n);
    }
}

static void json_report(FILE *out, const atf_conform_reader_options *o, const reader_caps *caps,
                        const corpus_case *cases, size_t n, const case_result *res, const tally *t)
{
    size_t R = o->reader_count;
    fputs("{\"schema\":\"atf-conform-reader/1\",\"corpus\":", out);
    kit_json_string(out, o->corpus_dir);
    fprintf(out, ",\"strict\":%s,\"must_reject_clauses\":[", o->strict ? "true" : "false");
    for (size_t m = 0; m < sizeof MUST_REJECT / sizeof MUST_REJECT[0]; m++)
        fprintf(out, "%s\"%s\"", m ? "," : "", MUST_REJECT[m]);
    fputs("],\"readers\":[", out);
    for (size_t j = 0; j < R; j++) {
        const tally *s = &t[j];
        fputs(j ? ",{\"command\":" : "{\"command\":", out);
        kit_json_string(out, o->readers[j]);
        fputs(",\"capabilities\":", out);
        if (caps[j].declared)
            fprintf(out, "{\"layouts\":[%s%s%s],\"detail\":%s,\"manifest\":%s}", caps[j].layouts & 2u ? "1" : "",
                    (caps[j].layouts & 6u) == 6u ? "," : "", caps[j].layouts & 4u ? "2" : "",
                    caps[j].detail ? "true" : "false", caps[j].manifest ? "true" : "false");
        else
            fputs("null", out);
        fprintf(out, ",\"verdict\":\"%s\",\"counts\":{\"right\":%u,\"tolerated\":%u,\"wrong\":%u,\"not_graded\":%u,"
                     "\"accepted\":%u,\"rejected\":%u,\"crashed\":%u,\"timeout\":%u,\"error\":%u}}",
                s->result[RES_WRONG] ? "fail" : "pass", s->result[RES_RIGHT], s->result[RES_TOLERATED],
                s->result[RES_WRONG], s->result[RES_NOT_GRADED], s->outcome[OUT_ACCEPTED], s->outcome[OUT_REJECTED],
                s->outcome[OUT_CRASHED], s->outcome[OUT_TIMEOUT], s->outcome[OUT_ERROR]);
    }
    fputs("],\"cases\":[", out);
    for (size_t i = 0; i < n; i++) {
        const corpus_case *k = &cases[i];
        fputs(i ? ",{\"case\":" : "{\"case\":", out);
        kit_json_string(out, k->name);
        fprintf(out, ",\"class\":\"%s\",\"target\":", CLASS_NAMES[k->cls]);
        kit_json_string(out, k->target);
        fprintf(out, ",\"expected\":\"%s\",\"error_clauses\":",
                k->cls == CLS_IMPL ? "either" : k->cls == CLS_INVALID ? "reject" : "accept");
        fputc('[', out);
        for (const char *e = k->errors; *e;) {
            size_t len = strcspn(e, " ");
            fputs(e == k->errors ? "" : ",", out);
            atf_json_fputs_n(e, len, out);
            e += len + (e[len] == ' ');
        }
        fputs("],\"must_reject\":", out);
        fputs(k->cls == CLS_INVALID && (k->must_reject_clause || o->strict) ? "true" : "false", out);
        fputs(",\"results\":[", out);
        for (size_t j = 0; j < R; j++) {
            const case_result *r = &res[i * R + j];
            fprintf(out, "%s{\"outcome\":\"%s\",\"result\":\"%s\",\"exit_code\":", j ? "," : "",
                    OUTCOME_KEYS[r->outcome], RESULT_NAMES[r->result]);
            if (r->outcome == OUT_ACCEPTED || r->outcome == OUT_REJECTED)
                fprintf(out, "%d", r->exit_code);
            else
                fputs("null", out);
            fputs(",\"signal\":", out);
            if (r->outcome == OUT_CRASHED)
                fprintf(out, "%d", r->signal);
            else
                fputs("null", out);
            fprintf(out, ",\"dump\":%s,\"stdout_bytes\":%" PRIu64 ",\"seconds\":%.3f,\"note\":",
                    r->dump_state == 1 ? "\"equal\"" : r->dump_state == 2 ? "\"differs\"" : "null", r->out_bytes,
                    r->seconds);
            kit_json_string(out, r->note[0] ? r->note : NULL);
            fputs(",\"stderr\":", out);
            kit_json_string(out, r->err_head[0] ? r->err_head : NULL);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    fputs("]}\n", out);
}

static int html_report(const char *path, const atf_conform_reader_options *o, const corpus_case *cases, size_t n,
                       const case_result *res, const tally *t)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t R = o->reader_count;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>ATF reader conformance matrix</title>\n<style>\n"
          "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
          "table{border-collapse:collapse;font-size:12px}\n"
          "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;white-space:nowrap}\n"
          "th.r{writing-mode:vertical-rl;transform:rotate(180deg);max-height:18em;overflow:hidden}\n"
          "td.right{background:#9be39b}td.tolerated{background:#f3e28b}td.wrong{background:#f08c8c}\n"
          "td.crashed{background:#b30000;color:#fff}td.timeout{background:#7a4ab3;color:#fff}\n"
          "td.error{background:#555;color:#fff}td.not-graded{background:#fff;color:#888}\n"
          "tr.cls td{background:#eee;font-weight:bold}\n.legend span{display:inline-block;padding:2px 8px;"
          "margin-right:4px;border:1px solid #ccc}\n"
          "</style></head><body>\n<h1>ATF reader conformance matrix</h1>\n<p>Corpus <code>",
          f);
    kit_xml(f, o->corpus_dir);
    fprintf(f, "</code>, %zu cases%s. Produced by <code>atf conform --reader</code> "
               "(conformance/kit/README.md). Hover a cell for details.</p>\n", n,
            o->strict ? ", strict grading (every invalid case must be rejected)" : "");
    fputs("<p class=\"legend\"><span style=\"background:#9be39b\">right</span>"
          "<span style=\"background:#f3e28b\">tolerated: accepted an invalid input a lenient reader may decode"
          "</span><span style=\"background:#f08c8c\">wrong</span>"
          "<span style=\"background:#b30000;color:#fff\">crashed</span>"
          "<span style=\"background:#7a4ab3;color:#fff\">timed out</span></p>\n",
          f);
    fputs("<h2>Readers</h2>\n<table><tr><th>#</th><th>command</th><th>right</th><th>tolerated</th><th>wrong</th>"
          "<th>accepted</th><th>rejected</th><th>crashed</th><th>timed out</th><th>not graded</th></tr>\n", f);
    for (size_t j = 0; j < R; j++) {
        fprintf(f, "<tr><td>R%zu</td><td><code>", j + 1);
        kit_xml(f, o->readers[j]);
        fprintf(f, "</code></td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td>"
                   "<td>%u</td></tr>\n",
                t[j].result[RES_RIGHT], t[j].result[RES_TOLERATED], t[j].result[RES_WRONG],
                t[j].outcome[OUT_ACCEPTED], t[j].outcome[OUT_REJECTED], t[j].outcome[OUT_CRASHED],
                t[j].outcome[OUT_TIMEOUT], t[j].result[RES_NOT_GRADED]);
    }
    fputs("</table>\n<h2>Cases</h2>\n<table><tr><th>case</th><th>expected</th>", f);
    for (size_t j = 0; j < R; j++) {
        fprintf(f, "<th class=\"r\" title=\"");
        kit_xml(f, o->readers[j]);
        fprintf(f, "\">R%zu</th>", j + 1);
    }
    fputs("</tr>\n", f);
    int last_cls = -1;
    for (size_t i = 0; i < n; i++) {
        const corpus_case *k = &cases[i];
        if (k->cls != last_cls) {
            fprintf(f, "<tr class=\"cls\"><td colspan=\"%zu\">%s (%c_)</td></tr>\n", R + 2, CLASS_NAMES[k->cls],
                    CLASS_PREFIX[k->cls]);
            last_cls = k->cls;
        }
        fputs("<tr><td title=\"", f);
        kit_xml(f, k->errors[0] ? k->errors : "no error clause");
        fputs("\">", f);
        kit_xml(f, k->name);
        fprintf(f, "</td><td>%s</td>", expected_text(k));
        for (size_t j = 0; j < R; j++) {
            const case_result *r = &res[i * R + j];
            const char *css = r->outcome == OUT_CRASHED ? "crashed" : r->outcome == OUT_TIMEOUT ? "timeout"
                            : r->outcome == OUT_ERROR  ? "error" : RESULT_NAMES[r->result];
            fprintf(f, "<td class=\"%s\" title=\"", css);
            kit_xml(f, r->note[0] ? r->note : RESULT_NAMES[r->result]);
            fprintf(f, "\">%s</td>", OUTCOME_NAMES[r->outcome]);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</body></html>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return -1;
    return 0;
}

static void log_wrong(FILE *log, const atf_conform_reader_options *o, const corpus_case *cases, size_t run,
                      const case_result *r)
{
    if (log && r->result == RES_WRONG) {
        fprintf(log, "atf conform: R%zu WRONG %s: %s\n", run % o->reader_count + 1,
                cases[run / o->reader_count].name, r->note);
        fflush(log);
    }
}

/* Runs every case x reader, up to `jobs` processes at once, from this one
 * thread (spawning from several threads deadlocks under qemu-user). Each run
 * writes only its own result slot: the report does not depend on the order. */
static int run_all(const atf_conform_reader_options *o, const reader_caps *caps, const corpus_case *cases, size_t n,
                   case_result *res, FILE *log)
{
    size_t R = o->reader_count, runs = n * R;
    /* Readers mostly start up and wait: by default twice as many as CPUs. */
    size_t jobs = o->jobs ? o->jobs : 2 * (size_t)atf_cpu_count();
    if (jobs > KIT_PROC_MAX_WAIT)
        jobs = KIT_PROC_MAX_WAIT;
    if (jobs > runs)
        jobs = runs ? runs : 1;
    slot *slots = calloc(jobs, sizeof *slots);
    kit_proc **watch = calloc(jobs, sizeof *watch);
    if (!slots || !watch) {
        free(slots);
        free(watch);
        return -1;
    }
    size_t next = 0, running = 0;
    for (;;) {
        for (size_t j = 0; j < jobs && next < runs; j++) {
            if (slots[j].busy)
                continue;
            size_t run = next++;
            const corpus_case *k = &cases[run / R];
            if (!graded(&caps[run % R], k, res[run].note, sizeof res[run].note)) {
                res[run].outcome = OUT_NOT_GRADED;
                res[run].result = RES_NOT_GRADED;
                j--;   /* the slot is still free */
                continue;
            }
            if (case_begin(o, o->readers[run % R], &caps[run % R], k, &res[run], &slots[j], run))
                running++;
            else
                log_wrong(log, o, cases, run, &res[run]);
        }
        if (!running)
            break;
        for (size_t j = 0; j < jobs; j++)
            watch[j] = slots[j].busy ? &slots[j].proc : NULL;
        kit_proc_wait_any(watch, jobs);
        for (size_t j = 0; j < jobs; j++) {
            slot *s = &slots[j];
            if (!s->busy || !s->proc.done)
                continue;
            size_t run = s->run;
            case_end(o, &cases[run / R], &res[run], s);
            running--;
            log_wrong(log, o, cases, run, &res[run]);
        }
    }
    free(slots);
    free(watch);
    return 0;
}

/* The verdict of a finished run, and its reports (text or JSON, and the HTML
 * matrix if asked). */
static int report_run(FILE *out, const atf_conform_reader_options *o, const reader_caps *caps,
                      const corpus_case *cases, size_t n, const case_result *res, tally *t, atf_error *err,
                      int *reported)
{
    size_t R = o->reader_count;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < R; j++)
            count(&t[j], &cases[i], &res[i * R + j]);
    int rc = ATF_CONFORM_PASS;
    for (size_t j = 0; j < R; j++)
        if (t[j].result[RES_WRONG])
            rc = ATF_CONFORM_FAIL;
    *reported = 1;
    if (o->format == ATF_CONFORM_JSON)
        json_report(out, o, caps, cases, n, res, t);
    else
        text_report(out, o, caps, cases, n, res, t);
    if (fflush(out) != 0 || ferror(out)) {
        atf_fail_file(err, ATF_E_IO, NULL, "cannot write the report");
        rc = ATF_CONFORM_ERROR;
    }
    if (o->html_path && html_report(o->html_path, o, cases, n, res, t) != 0) {
        atf_fail_file(err, ATF_E_IO, o->html_path, "cannot write the HTML matrix: %s", strerror(errno));
        rc = ATF_CONFORM_ERROR;
    }
    return rc;
}

static int reader_run(FILE *out, FILE *log, const atf_conform_reader_options *o, atf_error *err, int *reported)
{
    if (!out || !o || !o->reader_count || !o->readers || !o->corpus_dir) {
        atf_fail_file(err, ATF_E_ARG, NULL, "a reader command and a corpus directory are needed");
        return ATF_CONFORM_ERROR;
    }
    for (size_t j = 0; j < o->reader_count; j++)
        if (!o->readers[j] || !*o->readers[j]) {
            atf_fail_file(err, ATF_E_ARG, NULL, "empty reader command");
            return ATF_CONFORM_ERROR;
        }
    if (o->format != ATF_CONFORM_TEXT && o->format != ATF_CONFORM_JSON) {
        atf_fail_file(err, ATF_E_ARG, NULL, "the reader kit reports as text or JSON (and --html)");
        return ATF_CONFORM_ERROR;
    }
    corpus_case *cases;
    size_t n;
    if (load_corpus(o, &cases, &n, err) != 0)
        return ATF_CONFORM_ERROR;
    size_t R = o->reader_count;
    case_result *res = calloc(n * R, sizeof *res);
    tally *t = calloc(R, sizeof *t);
    reader_caps *caps = calloc(R, sizeof *caps);
    int rc = ATF_CONFORM_ERROR;
    int caps_bad = !caps;
    for (size_t j = 0; caps && res && t && j < R && !caps_bad; j++)
        caps_bad = query_reader_caps(o->readers[j], &caps[j], err) != 0;
    if (!res || !t || !caps)
        atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
    else if (caps_bad)
        ;   /* err filled by query_reader_caps */
    else if (run_all(o, caps, cases, n, res, o->format == ATF_CONFORM_TEXT ? NULL : log) != 0) /* text: the table says it */
        atf_fail_file(err, ATF_E_NOMEM, NULL, "out of memory");
    else
        rc = report_run(out, o, caps, cases, n, res, t, err, reported);
    for (size_t i = 0; i < n; i++)
        free_case(&cases[i]);
    free(cases);
    free(caps);
    free(res);
    free(t);
    return rc;
}

int atf_conform_reader_run(FILE *out, FILE *log, const atf_conform_reader_options *o, atf_error *err)
{
    atf_error local;
    if (!err)
        err = &local;
    memset(err, 0, sizeof *err);
    int reported = 0;
    int rc = reader_run(out, log, o, err, &reported);
    /* A JSON reader gets a result object even when the run could not start. */
    if (rc == ATF_CONFORM_ERROR && !reported && out && o && o->format == ATF_CONFORM_JSON)
        kit_error_report(out, o->format, "atf-conform-reader/1", "atf-conform-reader", err);
    return rc;
}
