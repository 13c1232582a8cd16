/* The clause table against the spec of every format of the registry (in
 * registry order: spec_paths.h, generated from formats/formats.cmake), both
 * ways: every clause row
 * of the spec (`| \`ID\` | severity | rule |`) is in the table with the same
 * severity, and every table entry is a clause of the spec; IDs are unique,
 * groups and lookups are consistent, recoverable clauses are the ones the
 * spec marks "(recoverable)". */
#include "vtest_util.h"

#include "spec_paths.h"   /* ATF_SPEC_PATHS: each format's spec, in registry order */

typedef struct spec_clause {
    char id[32];
    char severity[16];
    int recoverable;
} spec_clause;

/* Parses the clause rows of a spec file; returns how many. */
static size_t parse_spec_file(const char *path, spec_clause *out, size_t cap)
{
    buf b = read_file(path);
    resize(&b, b.n + 1, 0);
    size_t n = 0;
    for (char *line = (char *)b.p; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* "| `IDX-HDR-001` | error | ..." */
        char id[32], sev[64];
        if (sscanf(line, "| `%31[A-Z0-9-]` | %63[^|]|", id, sev) == 2) {
            assert_true(n < cap);
            snprintf(out[n].id, sizeof out[n].id, "%s", id);
            /* "warning (recoverable)" is a warning. */
            sscanf(sev, "%15s", out[n].severity);
            out[n].recoverable = strstr(line, "(recoverable)") != NULL;
            n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    buf_free(&b);
    return n;
}

/* Every format's clauses, in the table's order (the registry's). */
static size_t parse_spec(spec_clause *out, size_t cap)
{
    static const char *const specs[] = { ATF_SPEC_PATHS };
    size_t n = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        size_t k = parse_spec_file(specs[i], out + n, cap - n);
        if (k < 10)
            fail_msg("%s: %zu clause rows, a spec has at least 10", specs[i], k);
        n += k;
    }
    return n;
}

static void test_table_matches_spec(void **state)
{
    (void)state;
    spec_clause sc[300];
    size_t n = parse_spec(sc, 300);
    assert_true(n >= 110);
    assert_int_equal(n, atf_clause_count());
    for (size_t i = 0; i < n; i++) {
        const atf_clause *c = atf_clause_find(sc[i].id);
        if (!c)
            fail_msg("spec clause %s is not in the validator's table", sc[i].id);
        const char *want = c->severity == ATF_SEV_ERROR ? "error" : "warning";
        if (strcmp(sc[i].severity, want))
            fail_msg("%s: spec says %s, table says %s", sc[i].id, sc[i].severity, want);
        if (sc[i].recoverable != (int)c->recoverable)
            fail_msg("%s: recoverable %d in the spec, %u in the table", sc[i].id, sc[i].recoverable,
                     c->recoverable);
        /* Same order as the spec. */
        assert_string_equal(atf_clause_at(i)->id, sc[i].id);
    }
}

static void test_table_api(void **state)
{
    (void)state;
    for (size_t i = 0; i < atf_clause_count(); i++) {
        const atf_clause *c = atf_clause_at(i);
        assert_non_null(c);
        assert_non_null(c->summary);
        assert_true(strlen(c->summary) > 10);
        /* Every clause says how to fix it: one line of its own, a sentence. */
        assert_non_null(c->hint);
        assert_true(strlen(c->hint) > 20);
        assert_null(strpbrk(c->hint, "\t\n\r"));
        assert_int_equal(c->hint[strlen(c->hint) - 1], '.');
        assert_string_not_equal(c->hint, c->summary);
        assert_int_equal(atf_clause_index(c->id), i);
        assert_ptr_equal(atf_clause_find(c->id), c);
        /* The group is the ID without "-NNN". */
        size_t g = strlen(c->group);
        assert_int_equal(strncmp(c->id, c->group, g), 0);
        assert_int_equal(c->id[g], '-');
        assert_int_equal(strlen(c->id + g + 1), 3);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(atf_clause_at(j)->id, c->id);
    }
    assert_null(atf_clause_at(atf_clause_count()));
    assert_null(atf_clause_find("IDX-HDR-999"));
    assert_null(atf_clause_find(NULL));
    assert_int_equal(atf_clause_index("nope"), (size_t)-1);
}

static void test_table_write(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(atf_clause_table_write(f), ATF_OK);
    rewind(f);
    char line[1024];
    size_t i = 0;
    while (fgets(line, sizeof line, f)) {
        const atf_clause *c = atf_clause_at(i++);
        assert_non_null(c);
        char want[1024];
        snprintf(want, sizeof want, "%s\t%s\t%s\t%s\n", c->id,
                 c->severity == ATF_SEV_ERROR ? "error" : "warning", c->summary, c->hint);
        assert_string_equal(line, want);
    }
    assert_int_equal(i, atf_clause_count());
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_spec),
        cmocka_unit_test(test_table_api),
        cmocka_unit_test(test_table_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
