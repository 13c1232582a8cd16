/* Report writers: text, JSON (schema "atf-validate/1") and JUnit XML. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"      /* the codec's: atf_utf8_decode */
#include "escape.h"   /* the one JSON and XML escaper (formats/common) */
#include "vinternal.h"

static const char *sev_name(atf_severity s) { return s == ATF_SEV_ERROR ? "error" : "warning"; }

/* ---- Clause table ------------------------------------------------------- */

atf_status atf_clause_table_write(FILE *out)
{
    if (!out)
        return ATF_E_ARG;
    for (size_t i = 0; i < atf_clause_count(); i++) {
        const atf_clause *c = atf_clause_at(i);
        fprintf(out, "%s\t%s\t%s\t%s\n", c->id, sev_name(c->severity), c->summary, c->hint);
    }
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

/* ---- Text --------------------------------------------------------------- */

/* A string of the text report (a path may hold anything): control
 * characters are written as escapes (\n, \r, \t, \xHH), one line each. */
static void text_str(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            fprintf(out, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

static void put_location(FILE *out, const atf_validate_finding *f)
{
    text_str(out, f->file);
    if (f->offset != ATF_VALIDATE_NO_OFFSET)
        fprintf(out, ": offset %" PRIu64, f->offset);
    if (f->field) {
        fputs(": field ", out);
        text_str(out, f->field);
    }
    fputs(": ", out);
    text_str(out, f->message);
}

/* ".../manifest.json" below a directory of sessions. */
static int is_session_manifest(const char *label)
{
    size_t n = strlen(label), k = strlen("/manifest.json");
    return n > k && strcmp(label + n - k, "/manifest.json") == 0;
}

atf_status atf_validation_write_text(FILE *out, const atf_validation *v)
{
    if (!out || !v)
        return ATF_E_ARG;
    for (size_t i = 0; i < v->finding_count; i++) {
        const atf_validate_finding *f = &v->findings[i].pub;
        fprintf(out, "%s %s ", sev_name(f->severity), f->clause);
        put_location(out, f);
        fputc('\n', out);
    }
    /* How to fix: each clause found once, in the order of its first finding. */
    unsigned char shown[C_COUNT_];
    memset(shown, 0, sizeof shown);
    for (size_t i = 0; i < v->finding_count; i++) {
        size_t c = v->findings[i].clause;
        if (c < C_COUNT_ && !shown[c]) {
            shown[c] = 1;
            fprintf(out, "hint %s: %s\n", atf_clause_at(c)->id, atf_clause_at(c)->hint);
        }
    }
    /* A directory of sessions: each session is named (by its manifest.json's directory). */
    size_t sessions = 0;
    for (size_t i = 0; i < v->file_count; i++)
        sessions += is_session_manifest(v->files[i].label);
    for (size_t i = 0; sessions > 1 && i < v->file_count; i++)
        if (is_session_manifest(v->files[i].label))
            fprintf(out, "session %.*s\n", (int)(strlen(v->files[i].label) - strlen("/manifest.json")),
                    v->files[i].label);
    text_str(out, v->path);
    fprintf(out, ": %s (%" PRIu64 " error(s), %" PRIu64 " warning(s)",
            atf_validation_conformant(v) ? "conformant" : "NONCONFORMANT", v->errors, v->warnings);
    if (v->listed < v->errors + v->warnings)   /* some only counted, past the listing limits */
        fprintf(out, "; %" PRIu64 " listed, %" PRIu64 " more counted", v->listed, v->errors + v->warnings - v->listed);
    fputs(")\n", out);
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

/* ---- JSON ----------------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

atf_status atf_validation_write_json(FILE *out, const atf_validation *v)
{
    if (!out || !v)
        return ATF_E_ARG;
    fputs("{\"schema\":\"atf-validate/1\",\"path\":", out);
    atf_json_fputs(v->path, out);
    fprintf(out, ",\"strict\":%s,\"verdict\":\"%s\",\"counts\":{\"error\":%" PRIu64 ",\"warning\":%" PRIu64
                 ",\"listed\":%" PRIu64 "}",
            v->opts.strict ? "true" : "false", atf_validation_conformant(v) ? "conformant" : "nonconformant",
            v->errors, v->warnings, v->listed);
    fputs(",\"recovered\":[", out);
    for (size_t i = 0; i < v->recovered_count; i++) {
        fputs(i ? ",{\"file\":" : "{\"file\":", out);
        atf_json_fputs(v->recovered_pub[i].file, out);
        fprintf(out, ",\"events\":%" PRIu64 "}", v->recovered_pub[i].events);
    }
    /* Every file the run checked (for a directory of sessions, every session's manifest.json among them). */
    fputs("],\"files\":[", out);
    for (size_t i = 0; i < v->file_count; i++) {
        if (i)
            fputc(',', out);
        atf_json_fputs(v->files[i].label, out);
    }
    fputs("],\"findings\":[", out);
    for (size_t i = 0; i < v->finding_count; i++) {
        const atf_validate_finding *f = &v->findings[i].pub;
        fprintf(out, "%s{\"clause\":\"%s\",\"severity\":\"%s\",\"file\":", i ? "," : "", f->clause,
                sev_name(f->severity));
        atf_json_fputs(f->file, out);
        if (f->offset == ATF_VALIDATE_NO_OFFSET)
            fputs(",\"offset\":null", out);
        else
            fprintf(out, ",\"offset\":%" PRIu64, f->offset);
        fputs(",\"field\":", out);
        if (f->field)
            atf_json_fputs(f->field, out);
        else
            fputs("null", out);
        fputs(",\"message\":", out);
        atf_json_fputs(f->message, out);
        fputs(",\"hint\":", out);
        atf_json_fputs(atf_clause_at(v->findings[i].clause)->hint, out);
        fputc('}', out);
    }
    /* Sorted by ID (the table is in the spec's section order). */
    fputs("],\"clauses_checked\":[", out);
    const char *ids[C_COUNT_];
    size_t n = 0;
    for (size_t c = 0; c < C_COUNT_; c++)
        if (v->checked[c])
            ids[n++] = atf_clause_at(c)->id;
    qsort(ids, n, sizeof ids[0], cmp_id);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", ids[i]);
    fputs("]}\n", out);
    return ferror(out) ? ATF_E_IO : ATF_OK;
}

/* ---- JUnit XML -------------------------------------------------------------- */

static void xml_finding(FILE *out, const atf_validate_finding *f)
{
    char off[32] = "";
    if (f->offset != ATF_VALIDATE_NO_OFFSET)
        snprintf(off, sizeof off, ": offset %" PRIu64, f->offset);
    fprintf(out, "%s %s ", sev_name(f->severity), f->clause);
    atf_xml_fputs(f->file, out);
    fputs(off, out);
    if (f->field) {
        fputs(": field ", out);
        atf_xml_fputs(f->field, out);
    }
    fputs(": ", out);
    atf_xml_fputs(f->message, out);
    fputc('\n', out);
}

atf_status atf_validation_write_junit(FILE *out, const atf_validation *v)
{
    if (!out || !v)
        return ATF_E_ARG;
    size_t tests = 0, failures = 0;
    for (size_t c = 0; c < C_COUNT_; c++) {
        if (!v->checked[c])
            continue;
        tests++;
        for (size_t i = 0; i < v->finding_count; i++) {
            const vfinding *f = &v->findings[i];
            if (f->clause == c && (f->pub.severity == ATF_SEV_ERROR || v->opts.strict)) {
                failures++;
                break;
            }
        }
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuite name=\"atf-validate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
            tests, failures);
    fputs("  <properties>\n    <property name=\"path\" value=\"", out);
    atf_xml_fputs(v->path, out);
    fprintf(out, "\"/>\n    <property name=\"strict\" value=\"%s\"/>\n    <property name=\"verdict\" value=\"%s\"/>\n"
                 "  </properties>\n",
            v->opts.strict ? "true" : "false", atf_validation_conformant(v) ? "conformant" : "nonconformant");
    for (size_t c = 0; c < C_COUNT_; c++) {
        if (!v->checked[c])
            continue;
        const atf_clause *cl = atf_clause_at(c);
        const vfinding *first_fail = NULL;
        size_t nwarn = 0, nfind = 0;
        for (size_t i = 0; i < v->finding_count; i++) {
            const vfinding *f = &v->findings[i];
            if (f->clause != c)
                continue;
            nfind++;
            if (f->pub.severity == ATF_SEV_WARNING)
                nwarn++;
            if (!first_fail && (f->pub.severity == ATF_SEV_ERROR || v->opts.strict))
                first_fail = f;
        }
        fprintf(out, "  <testcase classname=\"atf.%s\" name=\"%s\"", cl->group, cl->id);
        if (!nfind) {
            fputs("/>\n", out);
            continue;
        }
        fputs(">\n", out);
        if (first_fail) {
            fputs("    <failure type=\"", out);
            fputs(sev_name(first_fail->pub.severity), out);
            fputs("\" message=\"", out);
            atf_xml_fputs(first_fail->pub.message, out);
            fputs("\">", out);
            for (size_t i = 0; i < v->finding_count; i++) {
                const vfinding *f = &v->findings[i];
                if (f->clause == c && (f->pub.severity == ATF_SEV_ERROR || v->opts.strict))
                    xml_finding(out, &f->pub);
            }
            fputs("</failure>\n", out);
        }
        if (nwarn) {
            fputs("    <system-out>", out);
            for (size_t i = 0; i < v->finding_count; i++) {
                const vfinding *f = &v->findings[i];
                if (f->clause == c && f->pub.severity == ATF_SEV_WARNING)
                    xml_finding(out, &f->pub);
            }
            fputs("</system-out>\n", out);
        }
        fputs("  </testcase>\n", out);
    }
    fputs("</testsuite>\n", out);
    return ferror(out) ? ATF_E_IO : ATF_OK;
}
