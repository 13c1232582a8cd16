/* The clause table and the report: findings with per-file, per-clause and
 * global limits, recovered counts, and the deterministic order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"      /* the codec's: atf_strdup */
#include "vinternal.h"

/* ---- Clause table ------------------------------------------------------ */

#define V_SEV_E ATF_SEV_ERROR
#define V_SEV_W ATF_SEV_WARNING

static const atf_clause g_clauses[C_COUNT_] = {
#define V_X_TABLE_(name, group, num, sev, rec, text, hint) { group "-" num, group, V_SEV_##sev, rec, text, hint },
    ATF_CLAUSE_LIST(V_X_TABLE_)
#undef V_X_TABLE_
};

size_t atf_clause_count(void) { return C_COUNT_; }

const atf_clause *atf_clause_at(size_t i) { return i < C_COUNT_ ? &g_clauses[i] : NULL; }

size_t atf_clause_index(const char *id)
{
    if (!id)
        return (size_t)-1;
    for (size_t i = 0; i < C_COUNT_; i++)
        if (!strcmp(g_clauses[i].id, id))
            return i;
    return (size_t)-1;
}

const atf_clause *atf_clause_find(const char *id)
{
    size_t i = atf_clause_index(id);
    return i == (size_t)-1 ? NULL : &g_clauses[i];
}

void v_check_range(atf_validation *v, unsigned first, unsigned count)
{
    for (unsigned c = first; c < first + count && c < C_COUNT_; c++)
        v->checked[c] = 1;
}

atf_severity v_clause_severity(vclause c) { return g_clauses[c].severity; }
const char *v_clause_id(vclause c) { return g_clauses[c].id; }

/* ---- Report construction ----------------------------------------------- */

atf_validation *v_create(const char *path, const atf_validate_options *opts)
{
    atf_validation *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    atf_validate_options d = ATF_VALIDATE_OPTIONS_INIT;
    v->opts = opts ? *opts : d;
    if (!v->opts.max_per_clause)
        v->opts.max_per_clause = V_DEFAULT_MAX_PER_CLAUSE;
    if (!v->opts.max_findings)
        v->opts.max_findings = V_DEFAULT_MAX_FINDINGS;
    v->path = atf_strdup(path ? path : "");
    if (!v->path) {
        free(v);
        return NULL;
    }
    return v;
}

size_t v_file(atf_validation *v, const char *label)
{
    if (v->file_count == v->file_cap) {
        size_t ncap = v->file_cap ? v->file_cap * 2 : 8;
        vfile *n = realloc(v->files, ncap * sizeof *n);
        if (!n) {
            v->oom = 1;
            return (size_t)-1;
        }
        v->files = n;
        v->file_cap = ncap;
    }
    vfile *f = &v->files[v->file_count];
    f->counts = NULL;
    f->label = atf_strdup(label);
    if (!f->label) {
        v->oom = 1;
        return (size_t)-1;
    }
    return v->file_count++;
}

static int push_finding(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset,
                        int summary, const char *field, const char *msg)
{
    if (v->finding_count == v->finding_cap) {
        size_t ncap = v->finding_cap ? v->finding_cap * 2 : 32;
        vfinding *n = realloc(v->findings, ncap * sizeof *n);
        if (!n)
            return 0;
        v->findings = n;
        v->finding_cap = ncap;
    }
    vfinding *f = &v->findings[v->finding_count];
    memset(f, 0, sizeof *f);
    f->message_copy = atf_strdup(msg);
    f->field_copy = field ? atf_strdup(field) : NULL;
    if (!f->message_copy || (field && !f->field_copy)) {
        free(f->message_copy);
        free(f->field_copy);
        return 0;
    }
    f->file = file;
    f->clause = (uint16_t)c;
    f->summary = (uint8_t)summary;
    f->seq = v->seq++;
    f->pub.clause = v_clause_id(c);
    f->pub.severity = sev;
    f->pub.offset = offset;
    f->pub.field = f->field_copy;
    f->pub.message = f->message_copy;
    v->finding_count++;
    return 1;
}

void v_reportv(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
               const char *fmt, va_list ap)
{
    if (file == (size_t)-1 || file >= v->file_count)
        return; /* the file could not be registered (out of memory, already flagged) */
    if (!sev)
        sev = v_clause_severity(c);
    v->checked[c] = 1;
    vfile *vf = &v->files[file];
    if (!vf->counts) {
        vf->counts = calloc(C_COUNT_, sizeof *vf->counts);
        if (!vf->counts) {
            v->oom = 1;
            return;
        }
    }
    vcount *k = &vf->counts[c];
    if (k->listed >= v->opts.max_per_clause || v->finding_count + 1 >= v->opts.max_findings) {
        if (sev == ATF_SEV_ERROR)
            v->unlisted_errors++;
        else
            v->unlisted_warnings++;
    }
    if (k->listed >= v->opts.max_per_clause) {
        if (k->more++ == 0)
            k->more_offset = offset;
        if (sev > k->more_severity)
            k->more_severity = (uint8_t)sev;
        return;
    }
    /* One slot is kept for the summary of what the global limit leaves out. */
    if (v->finding_count + 1 >= v->opts.max_findings) {
        if (v->dropped++ == 0) {
            v->dropped_file = file;
            v->dropped_clause = (uint16_t)c;
            v->dropped_offset = offset;
        }
        if (sev > v->dropped_severity)
            v->dropped_severity = (uint8_t)sev;
        return;
    }
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One line: control characters (from manifest strings) are replaced. */
    for (char *q = msg; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
    if (!push_finding(v, file, c, sev, offset, 0, field, msg)) {
        v->oom = 1;
        return;
    }
    k->listed++;
}

void v_report(atf_validation *v, size_t file, vclause c, atf_severity sev, uint64_t offset, const char *field,
              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v_reportv(v, file, c, sev, offset, field, fmt, ap);
    va_end(ap);
}

void v_recovered(atf_validation *v, size_t file, uint64_t events)
{
    if (file == (size_t)-1)
        return;
    if (v->recovered_count == v->recovered_cap) {
        size_t ncap = v->recovered_cap ? v->recovered_cap * 2 : 8;
        vrecovered *n = realloc(v->recovered, ncap * sizeof *n);
        if (!n) {
            v->oom = 1;
            return;
        }
        v->recovered = n;
        v->recovered_cap = ncap;
    }
    v->recovered[v->recovered_count].file = file;
    v->recovered[v->recovered_count].events = events;
    v->recovered_count++;
}

static int cmp_finding(const void *a, const void *b)
{
    const vfinding *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    /* Summaries last; then findings without an offset first, then by offset. */
    if (x->summary != y->summary)
        return x->summary < y->summary ? -1 : 1;
    int xn = x->pub.offset == V_NO_OFFSET, yn = y->pub.offset == V_NO_OFFSET;
    if (xn != yn)
        return xn ? -1 : 1;
    if (x->pub.offset != y->pub.offset)
        return x->pub.offset < y->pub.offset ? -1 : 1;
    int c = strcmp(x->pub.clause, y->pub.clause);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

atf_status v_finish(atf_validation *v)
{
    if (v->finished)
        return v->oom ? ATF_E_NOMEM : ATF_OK;
    v->finished = 1;
    char msg[256];
    /* Per file and clause: one summary of what max_per_clause left out. */
    for (size_t fi = 0; fi < v->file_count && !v->oom; fi++) {
        vcount *cs = v->files[fi].counts;
        if (!cs)
            continue;
        for (size_t c = 0; c < C_COUNT_; c++) {
            if (!cs[c].more)
                continue;
            if (cs[c].more_offset == V_NO_OFFSET)   /* findings without an offset (manifest keys) */
                snprintf(msg, sizeof msg, "%llu more finding(s) of this clause in this file not listed",
                         (unsigned long long)cs[c].more);
            else
                snprintf(msg, sizeof msg,
                         "%llu more finding(s) of this clause in this file not listed (first at offset %llu)",
                         (unsigned long long)cs[c].more, (unsigned long long)cs[c].more_offset);
            if (!push_finding(v, fi, (vclause)c, (atf_severity)cs[c].more_severity, V_NO_OFFSET, 1, NULL, msg))
                v->oom = 1;
        }
    }
    if (v->dropped && !v->oom) {
        snprintf(msg, sizeof msg, "%llu more finding(s) not listed: the limit of %u findings was reached",
                 (unsigned long long)v->dropped, v->opts.max_findings);
        if (!push_finding(v, v->dropped_file, (vclause)v->dropped_clause, (atf_severity)v->dropped_severity,
                          V_NO_OFFSET, 1, NULL, msg))
            v->oom = 1;
    }
    if (v->oom)
        return ATF_E_NOMEM;
    if (v->finding_count > 1)
        qsort(v->findings, v->finding_count, sizeof *v->findings, cmp_finding);
    for (size_t i = 0; i < v->finding_count; i++) {
        vfinding *f = &v->findings[i];
        f->pub.file = v->files[f->file].label;
        if (f->summary)   /* "N more finding(s) ... not listed": counted below, each of them */
            continue;
        v->listed++;
        if (f->pub.severity == ATF_SEV_ERROR)
            v->errors++;
        else
            v->warnings++;
    }
    v->errors += v->unlisted_errors;
    v->warnings += v->unlisted_warnings;
    v->recovered_pub = calloc(v->recovered_count ? v->recovered_count : 1, sizeof *v->recovered_pub);
    if (!v->recovered_pub) {
        v->oom = 1;
        return ATF_E_NOMEM;
    }
    for (size_t i = 0; i < v->recovered_count; i++) {
        v->recovered_pub[i].file = v->files[v->recovered[i].file].label;
        v->recovered_pub[i].events = v->recovered[i].events;
    }
    return ATF_OK;
}

/* ---- Public getters ----------------------------------------------------- */

void atf_validation_free(atf_validation *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->finding_count; i++) {
        free(v->findings[i].message_copy);
        free(v->findings[i].field_copy);
    }
    for (size_t i = 0; i < v->file_count; i++) {
        free(v->files[i].label);
        free(v->files[i].counts);
    }
    free(v->findings);
    free(v->files);
    free(v->recovered);
    free(v->recovered_pub);
    free(v->path);
    free(v);
}

const char *atf_validation_path(const atf_validation *v) { return v ? v->path : NULL; }
int atf_validation_strict(const atf_validation *v) { return v && v->opts.strict; }

int atf_validation_conformant(const atf_validation *v)
{
    return v && v->errors == 0 && (!v->opts.strict || v->warnings == 0);
}

void atf_validation_counts(const atf_validation *v, uint64_t *errors, uint64_t *warnings)
{
    if (errors)
        *errors = v ? v->errors : 0;
    if (warnings)
        *warnings = v ? v->warnings : 0;
}

uint64_t atf_validation_listed(const atf_validation *v) { return v ? v->listed : 0; }

size_t atf_validation_finding_count(const atf_validation *v) { return v ? v->finding_count : 0; }

const atf_validate_finding *atf_validation_finding_at(const atf_validation *v, size_t i)
{
    return v && i < v->finding_count ? &v->findings[i].pub : NULL;
}

int atf_validation_clause_checked(const atf_validation *v, size_t clause_index)
{
    return v && clause_index < C_COUNT_ && v->checked[clause_index];
}

size_t atf_validation_recovered_count(const atf_validation *v) { return v ? v->recovered_count : 0; }

const atf_validate_recovered *atf_validation_recovered_at(const atf_validation *v, size_t i)
{
    return v && v->recovered_pub && i < v->recovered_count ? &v->recovered_pub[i] : NULL;
}
