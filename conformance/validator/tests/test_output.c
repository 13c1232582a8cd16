/* The report writers: JSON (parsed back with jansson and checked against
 * schema "atf-validate/1" and the report API), JUnit XML (one testcase per
 * clause checked, failures where the verdict says), and text (one line per
 * finding, then the verdict line). */
#include "vtest_util.h"

#include <jansson.h>

/* Runs a writer into a string. */
typedef atf_status (*writer_fn)(FILE *, const atf_validation *);
static char *render(writer_fn fn, const atf_validation *v, size_t *len)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fn(f, v), ATF_OK);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *out = malloc((size_t)n + 1);
    assert_non_null(out);
    assert_int_equal(fread(out, 1, (size_t)n, f), (size_t)n);
    out[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return out;
}

/* A thread with errors, warnings and recovered files. */
static atf_validation *mixed_report(int strict)
{
    fx f;
    fx_make(&f, ATF_LAYOUT_2);
    put8(&f.idx, idx_ev(1) + 24, 9);              /* IDX-EVT-001 error */
    fix_idx_crc(&f);
    put16(&f.det, det_ev(1) + 4, 8);              /* DET-EVT-003 warning */
    det_crash(&f);                                /* REC-001 warning */
    resize(&f.det, f.det.n + 7, 0x11);            /* REC-002 warning */
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.strict = (unsigned)strict;
    atf_validation *v;
    assert_int_equal(atf_validate_thread_memory(&v, f.idx.p, f.idx.n, f.det.p, f.det.n, &o, NULL), ATF_OK);
    fx_free(&f);
    return v;
}

/* Strings that JSON carries byte for byte (printable ASCII). */
static int plain(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

static void expect_json_str(json_t *j, const char *want)
{
    assert_true(json_is_string(j));
    if (plain(want))
        assert_string_equal(json_string_value(j), want);
}

static void check_json(const atf_validation *v)
{
    size_t n;
    char *s = render(atf_validation_write_json, v, &n);
    assert_true(n > 0 && s[n - 1] == '\n');
    json_error_t je;
    json_t *root = json_loadb(s, n, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        fail_msg("JSON output does not parse: %s at %d: %s", je.text, je.position, s);
    assert_true(json_is_object(root));
    /* Exactly the documented keys, in the documented order. */
    static const char *const keys[] = { "schema", "path", "strict", "verdict", "counts", "recovered", "files",
                                        "findings", "clauses_checked" };
    assert_int_equal(json_object_size(root), sizeof keys / sizeof keys[0]);
    const char *prev = s;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        assert_non_null(json_object_get(root, keys[i]));
        char quoted[40];
        snprintf(quoted, sizeof quoted, "\"%s\":", keys[i]);
        const char *at = strstr(prev, quoted);
        assert_non_null(at);
        prev = at;
    }
    assert_string_equal(json_string_value(json_object_get(root, "schema")), "atf-validate/1");
    expect_json_str(json_object_get(root, "path"), atf_validation_path(v));
    assert_int_equal(json_is_true(json_object_get(root, "strict")), atf_validation_strict(v));
    assert_string_equal(json_string_value(json_object_get(root, "verdict")),
                        atf_validation_conformant(v) ? "conformant" : "nonconformant");
    uint64_t e, w;
    atf_validation_counts(v, &e, &w);
    json_t *counts = json_object_get(root, "counts");
    assert_int_equal(json_object_size(counts), 3);
    assert_int_equal(json_integer_value(json_object_get(counts, "error")), (json_int_t)e);
    assert_int_equal(json_integer_value(json_object_get(counts, "warning")), (json_int_t)w);
    assert_int_equal(json_integer_value(json_object_get(counts, "listed")), (json_int_t)atf_validation_listed(v));

    json_t *rec = json_object_get(root, "recovered");
    assert_true(json_is_array(rec));
    assert_int_equal(json_array_size(rec), atf_validation_recovered_count(v));
    for (size_t i = 0; i < json_array_size(rec); i++) {
        json_t *r = json_array_get(rec, i);
        expect_json_str(json_object_get(r, "file"), atf_validation_recovered_at(v, i)->file);
        assert_int_equal(json_integer_value(json_object_get(r, "events")),
                         (json_int_t)atf_validation_recovered_at(v, i)->events);
    }

    json_t *fs = json_object_get(root, "findings");
    assert_true(json_is_array(fs));
    assert_int_equal(json_array_size(fs), atf_validation_finding_count(v));
    uint64_t je_count = 0, jw_count = 0;
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *f = json_array_get(fs, i);
        const atf_validate_finding *g = atf_validation_finding_at(v, i);
        assert_int_equal(json_object_size(f), 7);
        assert_string_equal(json_string_value(json_object_get(f, "hint")), atf_clause_find(g->clause)->hint);
        assert_string_equal(json_string_value(json_object_get(f, "clause")), g->clause);
        assert_non_null(atf_clause_find(g->clause));
        const char *sev = json_string_value(json_object_get(f, "severity"));
        assert_string_equal(sev, g->severity == ATF_SEV_ERROR ? "error" : "warning");
        je_count += !strcmp(sev, "error");
        jw_count += !strcmp(sev, "warning");
        expect_json_str(json_object_get(f, "file"), g->file);
        json_t *off = json_object_get(f, "offset");
        if (g->offset == ATF_VALIDATE_NO_OFFSET)
            assert_true(json_is_null(off));
        else
            assert_int_equal(json_integer_value(off), (json_int_t)g->offset);
        json_t *field = json_object_get(f, "field");
        if (g->field)
            assert_string_equal(json_string_value(field), g->field);
        else
            assert_true(json_is_null(field));
        assert_string_equal(json_string_value(json_object_get(f, "message")), g->message);
    }
    assert_int_equal(je_count, e);
    assert_int_equal(jw_count, w);

    /* Sorted, unique, and exactly the clauses the report says were checked. */
    json_t *cc = json_object_get(root, "clauses_checked");
    size_t checked = 0;
    for (size_t i = 0; i < atf_clause_count(); i++)
        checked += (size_t)atf_validation_clause_checked(v, i);
    assert_int_equal(json_array_size(cc), checked);
    for (size_t i = 0; i < json_array_size(cc); i++) {
        const char *id = json_string_value(json_array_get(cc, i));
        assert_non_null(id);
        assert_true(atf_validation_clause_checked(v, atf_clause_index(id)));
        if (i)
            assert_true(strcmp(json_string_value(json_array_get(cc, i - 1)), id) < 0);
    }
    json_decref(root);
    free(s);
}

static void test_json(void **state)
{
    (void)state;
    atf_validation *v = mixed_report(0);
    assert_false(atf_validation_conformant(v));
    check_json(v);
    atf_validation_free(v);
    v = mixed_report(1);
    check_json(v);
    atf_validation_free(v);
    /* A clean report: empty arrays. */
    fx f;
    fx_make(&f, ATF_LAYOUT_1);
    assert_int_equal(atf_validate_thread_memory(&v, f.idx.p, f.idx.n, f.det.p, f.det.n, NULL, NULL), ATF_OK);
    check_json(v);
    char *s = render(atf_validation_write_json, v, NULL);
    assert_non_null(strstr(s, "\"verdict\":\"conformant\",\"counts\":{\"error\":0,\"warning\":0,\"listed\":0},\"recovered\":[],"
                              "\"files\":[\"index.atf\",\"detail.atf\"],\"findings\":[],"));
    free(s);
    atf_validation_free(v);
    fx_free(&f);
}

static void test_json_escapes_names(void **state)
{
    (void)state;
    /* A file name with a quote, a control character and invalid UTF-8 still
     * gives valid JSON (and valid XML). */
    char dir[64], p[160];
    tmp_dir(dir, sizeof dir, "esc");
    snprintf(p, sizeof p, "%s/we\"ird\x01\xff\xc3\xa9.atf", dir);
    write_file(p, "ATI2", 4);
    atf_validation *v = run_path(p, NULL);
    assert_int_equal(atf_validation_finding_count(v), 1);
    check_json(v);
    /* Invalid UTF-8 becomes U+FFFD, the control character \u0001. */
    char *js = render(atf_validation_write_json, v, NULL);
    assert_non_null(strstr(js, "we\\\"ird\\u0001\\ufffd\\u00e9.atf"));
    free(js);
    char *x = render(atf_validation_write_junit, v, NULL);
    assert_null(strchr(x, '\x01'));
    assert_non_null(strstr(x, "&quot;"));
    free(x);
    atf_validation_free(v);
    rm_rf(dir);
}

static size_t count_str(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The <testcase> element of clause id, as a string (freed by the caller). */
static char *testcase_of(const char *xml, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "name=\"%s\"", id);
    const char *a = strstr(xml, open);
    if (!a)
        return NULL;
    const char *b = strstr(a, "<testcase ");
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *s = malloc(n + 1);
    memcpy(s, a, n);
    s[n] = '\0';
    return s;
}

static void check_junit(const atf_validation *v)
{
    char *x = render(atf_validation_write_junit, v, NULL);
    size_t checked = 0, failing = 0;
    for (size_t i = 0; i < atf_clause_count(); i++) {
        const atf_clause *c = atf_clause_at(i);
        char *tc = testcase_of(x, c->id);
        if (!atf_validation_clause_checked(v, i)) {
            assert_null(tc);
            continue;
        }
        checked++;
        assert_non_null(tc);
        char cls[64];
        snprintf(cls, sizeof cls, "<testcase classname=\"atf.%s\" name=\"%s\"", c->group, c->id);
        assert_non_null(strstr(x, cls));
        int has_err = 0, has_warn = 0;
        for (size_t k = 0; k < atf_validation_finding_count(v); k++) {
            const atf_validate_finding *f = atf_validation_finding_at(v, k);
            if (strcmp(f->clause, c->id))
                continue;
            has_err |= f->severity == ATF_SEV_ERROR;
            has_warn |= f->severity == ATF_SEV_WARNING;
        }
        int fails = has_err || (has_warn && atf_validation_strict(v));
        failing += (size_t)fails;
        assert_int_equal(strstr(tc, "<failure ") != NULL, fails);
        assert_int_equal(strstr(tc, "<system-out>") != NULL, has_warn);
        free(tc);
    }
    assert_int_equal(count_str(x, "<testcase "), checked);
    assert_int_equal(count_str(x, "<testsuite "), 1);
    assert_non_null(strstr(x, "<testsuite name=\"atf-validate\""));
    char attrs[96];
    snprintf(attrs, sizeof attrs, "tests=\"%zu\" failures=\"%zu\"", checked, failing);
    assert_non_null(strstr(x, attrs));
    assert_int_equal(strncmp(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39), 0);
    assert_non_null(strstr(x, "</testsuite>\n"));
    free(x);
}

static void test_junit(void **state)
{
    (void)state;
    atf_validation *v = mixed_report(0);
    check_junit(v);
    atf_validation_free(v);
    v = mixed_report(1);
    check_junit(v);
    atf_validation_free(v);
}

static void test_text(void **state)
{
    (void)state;
    atf_validation *v = mixed_report(0);
    char *s = render(atf_validation_write_text, v, NULL);
    uint64_t e, w;
    atf_validation_counts(v, &e, &w);
    /* One line per finding, one hint line per clause found, then the verdict. */
    size_t clauses = 0;
    for (size_t c = 0; c < atf_clause_count(); c++)
        for (size_t i = 0; i < atf_validation_finding_count(v); i++)
            if (!strcmp(atf_validation_finding_at(v, i)->clause, atf_clause_at(c)->id)) {
                clauses++;
                break;
            }
    assert_true(clauses >= 2);
    assert_int_equal(count_str(s, "\n"), atf_validation_finding_count(v) + clauses + 1);
    assert_int_equal(count_str(s, "\nhint "), clauses);
    char hint[512];
    snprintf(hint, sizeof hint, "\nhint REC-001: %s\n", atf_clause_find("REC-001")->hint);
    assert_non_null(strstr(s, hint));
    /* after every finding line */
    assert_true(strstr(s, hint) > strstr(s, "warning REC-001 "));
    char line[256];
    snprintf(line, sizeof line, "error IDX-EVT-001 index.atf: offset %" PRIu64 ": field event_kind: event 1: ",
             idx_ev(1) + 24);
    assert_non_null(strstr(s, line));
    assert_non_null(strstr(s, "warning REC-001 detail.atf: offset 624: field footer: crash-truncated (no footer): 4 "
                              "complete events recovered, 7 trailing bytes ignored\n"));
    snprintf(line, sizeof line, "<thread>: NONCONFORMANT (%" PRIu64 " error(s), %" PRIu64 " warning(s))\n", e, w);
    assert_non_null(strstr(s, line));
    free(s);
    atf_validation_free(v);
    /* Findings without offset or field leave those parts out. */
    char dir[64], p[128];
    tmp_dir(dir, sizeof dir, "txt");
    pjoin(p, sizeof p, dir, "thread_0");
    assert_int_equal(mkdir(p, 0755), 0);
    fx f;
    fx_make(&f, ATF_LAYOUT_2);
    char q[160];
    write_file(pjoin(q, sizeof q, p, "index.atf"), f.idx.p, f.idx.n);
    write_file(pjoin(q, sizeof q, p, "detail.atf"), f.det.p, f.det.n);
    v = run_path(dir, NULL);
    s = render(atf_validation_write_text, v, NULL);
    assert_non_null(strstr(s, "warning SES-MAN-001 manifest.json: the session has no manifest.json"));
    snprintf(line, sizeof line, "%s: conformant (0 error(s), 1 warning(s))\n", dir);
    assert_non_null(strstr(s, line));
    free(s);
    atf_validation_free(v);
    fx_free(&f);
    rm_rf(dir);
}

static void test_finding_order(void **state)
{
    (void)state;
    atf_validation *v = mixed_report(0);
    /* Index before detail; within a file by offset (none first), then clause. */
    int seen_detail = 0;
    uint64_t prev_off = 0;
    const char *prev_file = "";
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (!strcmp(f->file, "detail.atf"))
            seen_detail = 1;
        else
            assert_false(seen_detail);
        if (strcmp(f->file, prev_file)) {
            prev_file = f->file;
            prev_off = 0;
        }
        uint64_t o = f->offset == ATF_VALIDATE_NO_OFFSET ? 0 : f->offset + 1;
        if (!strstr(f->message, "not listed"))
            assert_true(o >= prev_off);
        prev_off = o;
    }
    /* REC-001 and REC-002 share offset 624: by clause ID. */
    size_t a = SIZE_MAX, b = SIZE_MAX;
    for (size_t i = 0; i < atf_validation_finding_count(v); i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        if (!strcmp(f->clause, "REC-001"))
            a = i;
        if (!strcmp(f->clause, "REC-002"))
            b = i;
    }
    assert_true(a < b && b != SIZE_MAX);
    atf_validation_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_escapes_names),
        cmocka_unit_test(test_junit),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_finding_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
