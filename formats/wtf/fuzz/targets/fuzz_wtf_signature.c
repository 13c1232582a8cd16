/* Target wtf_signature: atf_wtf_parse_signature (a define's `args`) and the
 * definitions built from it.
 *
 * Input: signature text. Properties (SPEC-WTF 4.2):
 *  - the status is exactly the one of the grammar as the harness parses it
 *    (fz_wtf_parse_signature): ATF_E_FIELD for an unknown type, a missing
 *    space or name, a duplicate name or a stray character, ATF_E_LIMIT for
 *    more than 64 arguments; the error record gives a position inside the
 *    text;
 *  - a parsed signature has the harness's arguments: type, array flag, name
 *    (terminated, in the caller's buffer);
 *  - the names need exactly sum(length + 1) bytes: that much parses, one
 *    byte less is ATF_E_LIMIT; the text's length + 1 is always enough;
 *  - the arguments written back in the canonical spelling ("type[] name"
 *    joined by ", ") parse to the same arguments;
 *  - a definition built from it (wtf_def_new) exists exactly when it parses,
 *    with the same arguments, and keeps name and signature as given. */
#include <stdlib.h>
#include <string.h>

#include "wtf_internal.h"

#include "fuzz_wtf.h"

static void same_args(const atf_wtf_def *def, const fz_wtf_arg *args, size_t n, const char *what)
{
    FZ_CHECK(def->arg_count == n, "%s: %zu arguments, the grammar has %zu", what, def->arg_count, n);
    for (size_t i = 0; i < n; i++) {
        const atf_wtf_arg *a = &def->args[i];
        FZ_CHECK(a->type == fz_wtf_types[args[i].type].codec && a->array == args[i].array &&
                     strlen(a->name) == args[i].name_len && memcmp(a->name, args[i].name, args[i].name_len) == 0,
                 "%s: argument %zu is %s%s %s, the grammar says %s%s %.*s", what, i, atf_wtf_type_name(a->type),
                 a->array ? "[]" : "", a->name, fz_wtf_types[args[i].type].name, args[i].array ? "[]" : "",
                 (int)args[i].name_len, args[i].name);
        FZ_CHECK(strcmp(atf_wtf_type_name(a->type), fz_wtf_types[args[i].type].name) == 0, "%s: type name", what);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *sig = (const char *)data;
    fz_wtf_arg args[FZ_WTF_MAX_ARGS];
    size_t n = 0;
    atf_status want = fz_wtf_parse_signature(sig, size, args, &n);
    atf_wtf_def *def = calloc(1, sizeof *def);
    char *names = malloc(size + 1);
    FZ_CHECK(def && names, "oom");
    atf_error err;
    atf_status st = atf_wtf_parse_signature(sig, size, def, names, size + 1, &err);
    FZ_CHECK(st == want, "parse returned %s, the grammar says %s", atf_status_name(st), atf_status_name(want));

    atf_wtf_def *d = wtf_def_new(7, 0, 0, "fuzz#event", 10, sig, size, NULL);
    FZ_CHECK((d != NULL) == (st == ATF_OK), "wtf_def_new %s a signature that parse %s", d ? "accepts" : "refuses",
             st == ATF_OK ? "accepts" : "refuses");
    if (st != ATF_OK) {
        fz_check_error(&err, st, "signature");
        FZ_CHECK(err.field != NULL && err.offset <= size, "error at %llu of %zu characters",
                 (unsigned long long)err.offset, size);
        free(def);
        free(names);
        return 0;
    }
    same_args(def, args, n, "parse");
    same_args(d, args, n, "wtf_def_new");
    FZ_CHECK(d->wire_id == 7 && strcmp(d->name, "fuzz#event") == 0 && memcmp(d->signature, sig, size) == 0 &&
                 d->signature[size] == 0 && d->builtin == ATF_WTF_BI_NONE,
             "definition fields");
    wtf_def_free(d);

    size_t need = 0;
    for (size_t i = 0; i < n; i++)
        need += args[i].name_len + 1u;
    FZ_CHECK(atf_wtf_parse_signature(sig, size, def, names, need, NULL) == ATF_OK, "%zu bytes of names", need);
    if (n)
        FZ_CHECK(atf_wtf_parse_signature(sig, size, def, names, need - 1, &err) == ATF_E_LIMIT,
                 "%zu bytes for %zu bytes of names", need - 1, need);

    /* The canonical spelling parses to the same arguments. */
    size_t cap = 16 * n + need + 2 * n + 1, len = 0;
    char *canon = malloc(cap);
    FZ_CHECK(canon != NULL, "oom");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(canon + len, cap - len, "%s%s%s %.*s", i ? ", " : "", fz_wtf_types[args[i].type].name,
                                args[i].array ? "[]" : "", (int)args[i].name_len, args[i].name);
    char *names2 = malloc(len + 1);
    FZ_CHECK(names2 != NULL, "oom");
    FZ_CHECK(atf_wtf_parse_signature(canon, len, def, names2, len + 1, &err) == ATF_OK, "canonical form \"%s\": %s",
             canon, err.message);
    same_args(def, args, n, "canonical form");
    free(canon);
    free(names2);
    free(names);
    free(def);
    return 0;
}
