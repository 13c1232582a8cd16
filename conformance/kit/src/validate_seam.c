/* The one place where the kits call the clause validator.
 *
 * It links atf_validator (atf/validator.h) and copies the report into the
 * kit's own structure, so that the rest of the kit depends only on
 * kit_vresult. Replacing this file by one that runs
 * `atf validate --format json DIR` (schema "atf-validate/1") and parses the
 * JSON would decouple the kit from the library without other changes. */
#include <stdlib.h>
#include <string.h>

#include <atf/validator.h>

#include "kit_internal.h"

static int cmp_id(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

void kit_clause_group(const char *id, char *dst, size_t cap)
{
    const atf_clause *c = atf_clause_find(id);
    if (c && c->group) {
        snprintf(dst, cap, "%s", c->group);
        return;
    }
    /* Everything before the last '-' (KIT-IDX-002 -> KIT-IDX). */
    const char *dash = strrchr(id, '-');
    size_t n = dash ? (size_t)(dash - id) : strlen(id);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, id, n);
    dst[n] = '\0';
}

void kit_validate_session(const char *dir, kit_vresult *out)
{
    memset(out, 0, sizeof *out);
    atf_validate_options o = ATF_VALIDATE_OPTIONS_INIT;
    o.max_per_clause = 5;
    o.max_findings = 200;
    atf_validation *v = NULL;
    atf_error err;
    memset(&err, 0, sizeof err);
    atf_status st = atf_validate_path(&v, dir, &o, &err);
    if (st) {
        char line[400];
        atf_error_format(line, sizeof line, &err);
        snprintf(out->error, sizeof out->error, "the validator could not run: %s", line[0] ? line : atf_strerror(st));
        return;
    }
    size_t n = atf_validation_finding_count(v);
    out->findings = n ? calloc(n, sizeof *out->findings) : NULL;
    size_t nc = atf_clause_count();
    out->checked = calloc(nc ? nc : 1, sizeof *out->checked);
    if ((n && !out->findings) || !out->checked) {
        snprintf(out->error, sizeof out->error, "out of memory");
        atf_validation_free(v);
        kit_vresult_free(out);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const atf_validate_finding *f = atf_validation_finding_at(v, i);
        kit_vfinding *k = &out->findings[out->finding_count++];
        snprintf(k->clause, sizeof k->clause, "%s", f->clause);
        k->error = f->severity == ATF_SEV_ERROR;
        const atf_clause *c = atf_clause_find(f->clause);
        k->recoverable = c && c->recoverable;
        k->file = kit_strdup(f->file ? f->file : "");
        k->offset = f->offset;
        k->field = f->field ? kit_strdup(f->field) : NULL;
        k->message = kit_strdup(f->message ? f->message : "");
        if (k->error)
            out->errors++;
        else
            out->warnings++;
    }
    for (size_t i = 0; i < nc; i++)
        if (atf_validation_clause_checked(v, i))
            snprintf(out->checked[out->checked_count++], sizeof out->checked[0], "%s", atf_clause_at(i)->id);
    qsort(out->checked, out->checked_count, sizeof out->checked[0], cmp_id);
    atf_validation_free(v);
    out->ran = 1;
}

void kit_vresult_free(kit_vresult *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->finding_count; i++) {
        free(r->findings[i].file);
        free(r->findings[i].field);
        free(r->findings[i].message);
    }
    free(r->findings);
    free(r->checked);
    r->findings = NULL;
    r->checked = NULL;
    r->finding_count = r->checked_count = 0;
}
