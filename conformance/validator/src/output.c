/* Report writers: text, JSON (schema "atf-validate/1") and JUnit XML. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"      /* the codec's: atf_utf8_decode */
#include "vinternal.h"

/* Next code point of a NUL-terminated UTF-8 string; a malformed sequence
 * gives U+FFFD and consumes one byte. */
static uint32_t next_cp(const unsigned char **pp)
{
    uint32_t cp;
    size_t k = atf_utf8_decode(*pp, 4, &cp);   /* stops at the NUL: no continuation byte */
    *pp += k ? k : 1;
    return k ? cp : 0xFFFD;
}

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

/* A JSON string; everything outside printable ASCII is escaped as \uXXXX. */
static void json_str(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        uint32_t c = next_cp(&p);
        switch (c) {
        case '"': fputs("\\\"", out); continue;
        case '\\': fputs("\\\\", out); continue;
        case '\n': fputs("\\n", out); continue;
        case '\r': fputs("\\r", out); continue;
        case '\t': fputs("\\t", out); continue;
        default: break;
        }
        if (c >= 0x20 && c < 0x7F) {
            fputc((int)c, out);
        } else if (c >= 0x10000) {
            c -= 0x10000;
            fprintf(out, "\\u%04x\\u%04x", 0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF));
        } else {
            fprintf(out, "\\u%04x", c);
        }
    }
    fputc('"', out);
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

atf_status atf_validation_write_json(FILE *out, const atf_validation *v)
{
    if (!out || !v)
        return ATF_E_ARG;
    fputs("{\"schema\":\"atf-validate/1\",\"path\":", out);
    json_str(out, v->path);
    fprintf(out, ",\"strict\":%s,\"verdict\":\"%s\",\"counts\":{\"error\":%" PRIu64 ",\"warning\":%" PRIu64
                 ",\"listed\":%" PRIu64 "}",
            v->opts.strict ? "true" : "false", atf_validation_conformant(v) ? "conformant" : "nonconformant",
            v->errors, v->warnings, v->listed);
    fputs(",\"recovered\":[", out);
    for (size_t i = 0; i < v->recovered_count; i++) {
        fputs(i ? ",{\"file\":" : "{\"file\":", out);
        json_str(out, v->recovered_pub[i].file);
        fprintf(out, ",\"events\":%" PRIu64 "}", v->recovered_pub[i].events);
    }
    /* Every file the run checked (for a directory of sessions, every session's manifest.json among them). */
    fputs("],\"files\":[", out);
    for (size_t i = 0; i < v->file_count; i++) {
        if (i)
            fputc(',', out);
        json_str(out, v->files[i].label);
    }
    fputs("],\"findings\":[", out);
    for (size_t i = 0; i < v->finding_count; i++) {
        const atf_validate_finding *f = &v->findings[i].pub;
        fprintf(out, "%s{\"clause\":\"%s\",\"severity\":\"%s\",\"file\":", i ? "," : "", f->clause,
                sev_name(f->severity));
        json_str(out, f->file);
        if (f->offset == ATF_VALIDATE_NO_OFFSET)
            fputs(",\"offset\":null", out);
        else
            fprintf(out, ",\"offset\":%" PRIu64, f->offset);
        fputs(",\"field\":", out);
        if (f->field)
            json_str(out, f->field);
        else
            fputs("null", out);
        fputs(",\"message\":", out);
        json_str(out, f->message);
        fputs(",\"hint\":", out);
        json_str(out, atf_clause_at(v->findings[i].clause)->hint);
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

/* XML 1.0 text or attribute value: markup escaped, characters XML cannot
 * hold (most C0 controls) replaced by U+FFFD. */
static void xml_str(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c = next_cp(&p);
        switch (c) {
        case '&': fputs("&amp;", out); continue;
        case '<': fputs("&lt;", out); continue;
        case '>': fputs("&gt;", out); continue;
        case '"': fputs("&quot;", out); continue;
        case '\'': fputs("&apos;", out); continue;
        default: break;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF)
            c = 0xFFFD;
        if (c < 0x80) {
            fputc((int)c, out);
        } else {
            fprintf(out, "&#x%X;", c);
        }
    }
}

static void xml_finding(FILE *out, const atf_validate_finding *f)
{
    char off[32] = "";
    if (f->offset != ATF_VALIDATE_NO_OFFSET)
        snprintf(off, sizeof off, ": offset %" PRIu64, f->offset);
    fprintf(out, "%s %s ", sev_name(f->severity), f->clause);
    xml_str(out, f->file);
    fputs(off, out);
    if (f->field) {
        fputs(": field ", out);
        xml_str(out, f->field);
    }
    fputs(": ", out);
    xml_str(out, f->message);
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
    xml_str(out, v->path);
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
            xml_str(out, first_fail->pub.message);
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
