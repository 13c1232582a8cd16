/* `atf dump` and `atf info` of an RTC file: the canonical JSON Lines of
 * docs/rtc-dump-format.md, a text form of the same, and a summary. */
#include <stdlib.h>
#include <string.h>

#include <atf/rtc.h>
#include <atf/tool_options.h>

#include "common.h"
#include "obuf.h"
#include "rtc_internal.h"
#include "rtc_tools.h"

/* One line of the dump, sorted by (offset, kind, stream, order found). */
typedef struct item {
    int64_t offset;
    int kind;                 /* 0 skipped, 1 unit, 2 stream, 3 record */
    uint64_t sid;
    size_t index;
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->sid != y->sid)
        return x->sid < y->sid ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The JSON form's piece, or the text form's. */
static void put2(obuf *o, int json, const char *j, const char *t)
{
    const char *s = json ? j : t;
    ob_put(o, s, strlen(s));
}

static void put_opt_u64(obuf *o, int has, uint64_t v)
{
    if (has)
        ob_u64(o, v);
    else
        ob_lit(o, "null");
}

static void put_file_line(obuf *o, const atf_rtc_summary *s)
{
    ob_lit(o, "{\"rtc\":1,\"size\":");
    ob_u64(o, s->file_size);
    ob_lit(o, ",\"unit_size\":");
    put_opt_u64(o, s->has_geometry, s->unit_size);
    ob_lit(o, ",\"subunit_size\":");
    put_opt_u64(o, s->has_geometry, s->subunit_size);
    ob_lit(o, ",\"origin\":");
    if (s->has_geometry)
        ob_i64(o, s->origin);
    else
        ob_lit(o, "null");
    ob_lit(o, ",\"byte_order\":");
    if (s->byte_order == 1)
        ob_lit(o, "\"little\"");
    else if (s->byte_order == 2)
        ob_lit(o, "\"big\"");
    else
        ob_lit(o, "null");
    ob_lit(o, "}\n");
}

static void put_record_line(obuf *o, const atf_rtc_record *r)
{
    ob_lit(o, "{\"record\":");
    ob_u64(o, r->stream);
    ob_lit(o, ",\"offset\":");
    ob_u64(o, r->offset);
    ob_lit(o, ",\"frames\":[");
    for (size_t i = 0; i < r->frame_count; i++) {
        if (i)
            ob_char(o, ',');
        ob_u64(o, r->frames[i]);
    }
    ob_lit(o, "],\"size\":");
    ob_u64(o, r->size);
    ob_lit(o, ",\"time\":");
    if (r->has_time)
        ob_number(o, r->time);
    else
        ob_lit(o, "null");
    ob_lit(o, ",\"value\":");
    rtc_value_render(o, r);
    ob_lit(o, "}\n");
}

static void put_text_record(obuf *o, const atf_rtc_record *r)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%12llu  stream %-4llu %6zu bytes  ", (unsigned long long)r->offset,
                     (unsigned long long)r->stream, r->size);
    ob_put(o, line, (size_t)n);
    if (r->has_time) {
        ob_lit(o, "t=");
        ob_number(o, r->time);
        ob_char(o, ' ');
    }
    rtc_value_render(o, r);
    ob_char(o, '\n');
}

/* What was skipped and every error, one line each on diag (docs/rtc-dump-format.md). */
static void diag_report(FILE *diag, const char *path, const atf_rtc_reader *r)
{
    if (!diag)
        return;
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    for (size_t i = 0; i < s.skipped_ranges; i++) {
        atf_rtc_skip k;
        atf_rtc_reader_skip(r, i, &k);
        fprintf(diag, "atf: %s: offset %llu: skipped %llu bytes (%s)\n", path, (unsigned long long)k.offset,
                (unsigned long long)k.bytes, k.reason);
    }
    size_t nf = atf_rtc_reader_finding_count(r);
    for (size_t i = 0; i < nf; i++) {
        atf_finding f;
        atf_rtc_reader_finding(r, i, &f);
        if (f.clause && strncmp(f.clause, "RTC-REC-", 8) != 0) {
            /* warnings other than cuts are the validator's business */
            int c = 0;
            while (c < RC_COUNT_ && strcmp(rtc_clause_id(c), f.clause))
                c++;
            if (!rtc_clause_is_error(c))
                continue;
        }
        fprintf(diag, "atf: %s: offset %llu:%s%s%s %s%s%s\n", path, (unsigned long long)f.offset,
                f.field ? " field " : "", f.field ? f.field : "", f.field ? ":" : "", f.clause ? f.clause : "", f.clause ? ": " : "",
                f.message);
    }
    if (s.state != ATF_RTC_COMPLETE)
        fprintf(diag, "atf: %s: %s: %llu records read from %llu Units; %llu bytes in %llu ranges skipped\n", path,
                s.state == ATF_RTC_DAMAGED ? "damaged" : "crash-truncated", (unsigned long long)s.records,
                (unsigned long long)s.units, (unsigned long long)s.skipped_bytes, (unsigned long long)s.skipped_ranges);
}

static atf_status verdict(const atf_rtc_reader *r, atf_error *err, const char *path)
{
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    if (s.state == ATF_RTC_DAMAGED) {
        if (err) {
            *err = s.first_damage;
            atf_error_detach_field(err);   /* the reader that owns it is closed next */
            atf_error_set_file(err, path);
        }
        return ATF_E_DAMAGED;
    }
    return ATF_OK;
}

/* The skipped ranges, Units, stream definitions and records of r, in file
 * order, into a malloc'd array of *total items (NULL: out of memory when
 * *total is not 0). */
static item *dump_items(const atf_rtc_reader *r, const atf_rtc_summary *s, size_t *total)
{
    *total = s->skipped_ranges + s->units + s->streams + s->records;
    item *it = *total ? malloc(*total * sizeof *it) : NULL;
    if (!it)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->skipped_ranges; i++) {
        atf_rtc_skip x;
        atf_rtc_reader_skip(r, i, &x);
        it[k++] = (item){ (int64_t)x.offset, 0, 0, i };
    }
    for (size_t i = 0; i < s->units; i++) {
        atf_rtc_unit_info x;
        atf_rtc_reader_unit(r, i, &x);
        it[k++] = (item){ (int64_t)x.offset, 1, 0, i };
    }
    for (size_t i = 0; i < s->streams; i++) {
        uint64_t id, off;
        atf_rtc_reader_stream(r, i, &id, &off, NULL);
        it[k++] = (item){ (int64_t)off, 2, id, i };
    }
    for (size_t i = 0; i < s->records; i++) {
        atf_rtc_record x;
        atf_rtc_reader_record(r, i, &x);
        it[k++] = (item){ (int64_t)x.offset, 3, 0, i };
    }
    qsort(it, *total, sizeof *it, cmp_item);
    return it;
}

static void dump_skip(obuf *o, int json, const atf_rtc_reader *r, size_t index)
{
    atf_rtc_skip x;
    atf_rtc_reader_skip(r, index, &x);
    put2(o, json, "{\"skipped\":", "skipped at ");
    ob_u64(o, x.offset);
    put2(o, json, ",\"bytes\":", ": ");
    ob_u64(o, x.bytes);
    put2(o, json, ",\"reason\":\"", " bytes (");
    ob_put(o, x.reason, strlen(x.reason));
    put2(o, json, "\"}\n", ")\n");
}

static void dump_unit(obuf *o, int json, const atf_rtc_reader *r, size_t index)
{
    atf_rtc_unit_info x;
    atf_rtc_reader_unit(r, index, &x);
    put2(o, json, "{\"unit\":", "Unit ");
    ob_u64(o, x.number);
    put2(o, json, ",\"offset\":", " at ");
    ob_u64(o, x.offset);
    put2(o, json, ",\"bytes\":", ": ");
    ob_u64(o, x.bytes);
    put2(o, json, ",\"crc\":", " bytes, crc ");
    if (x.crc) {
        if (json)
            ob_char(o, '"');
        ob_put(o, x.crc, strlen(x.crc));
        if (json)
            ob_char(o, '"');
    } else {
        put2(o, json, "null", "none (cut)");
    }
    put2(o, json, "}\n", "\n");
}

static void dump_stream(obuf *o, int json, const atf_rtc_reader *r, size_t index)
{
    uint64_t id, off;
    const void *obj;
    atf_rtc_reader_stream(r, index, &id, &off, &obj);
    put2(o, json, "{\"stream\":", "stream ");
    ob_u64(o, id);
    put2(o, json, ",\"offset\":", " defined at ");
    ob_u64(o, off);
    put2(o, json, ",\"definition\":", ": ");
    ob_json_value(o, obj);
    put2(o, json, "}\n", "\n");
}

atf_status rtc_tool_dump(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    if (opts && (opts->window || opts->threads)) {
        atf_fail(err, ATF_E_ARG, ATF_NO_OFFSET, NULL,
                 "--from, --to and --thread select ATF events; an RTC file is dumped whole");
        atf_error_set_file(err, path);
        return ATF_E_ARG;
    }
    atf_rtc_reader *r = NULL;
    atf_status st = atf_rtc_reader_open(&r, path, err);
    if (st != ATF_OK)
        return st;
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    int json = opts && opts->json;
    obuf *o = malloc(sizeof *o);
    size_t total;
    item *it = dump_items(r, &s, &total);
    if (!o || (total && !it)) {
        free(o);
        free(it);
        atf_rtc_reader_close(r);
        return atf_fail(err, ATF_E_NOMEM, ATF_NO_OFFSET, NULL, NULL);
    }
    ob_init(o, out);
    if (json) {
        put_file_line(o, &s);
    } else {
        char line[200];
        int n = snprintf(line, sizeof line, "rtc file: %llu bytes, Unit %llu, unit %llu, origin %lld, %s-endian\n",
                         (unsigned long long)s.file_size, (unsigned long long)s.unit_size,
                         (unsigned long long)s.subunit_size, (long long)s.origin,
                         s.byte_order == 2 ? "big" : "little");
        ob_put(o, line, (size_t)n);
    }
    for (size_t i = 0; i < total && !o->failed; i++) {
        if (it[i].kind == 0)
            dump_skip(o, json, r, it[i].index);
        else if (it[i].kind == 1)
            dump_unit(o, json, r, it[i].index);
        else if (it[i].kind == 2)
            dump_stream(o, json, r, it[i].index);
        else {
            atf_rtc_record x;
            atf_rtc_reader_record(r, it[i].index, &x);
            if (json)
                put_record_line(o, &x);
            else
                put_text_record(o, &x);
        }
    }
    free(it);
    if (ob_flush(o) != 0)
        st = atf_fail(err, ATF_E_IO, ATF_NO_OFFSET, NULL, "cannot write the output");
    free(o);
    diag_report(opts ? opts->diag : NULL, path, r);
    if (st == ATF_OK)
        st = verdict(r, err, path);
    atf_rtc_reader_close(r);
    return st;
}

atf_status rtc_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    atf_rtc_reader *r = NULL;
    atf_status st = atf_rtc_reader_open(&r, path, err);
    if (st != ATF_OK)
        return st;
    atf_rtc_summary s;
    atf_rtc_reader_summary(r, &s);
    static const char *const states[] = { "complete", "crash-truncated", "damaged" };
    static const char *const orders[] = { "null", "\"little\"", "\"big\"" };
    if (opts && opts->json) {
        fprintf(out,
                "{\"format\":\"rtc\",\"state\":\"%s\",\"size\":%llu,\"unit_size\":%llu,\"subunit_size\":%llu,"
                "\"origin\":%lld,\"byte_order\":%s,\"units\":%llu,\"streams\":%llu,\"records\":%llu,"
                "\"skipped_ranges\":%llu,\"skipped_bytes\":%llu}\n",
                states[s.state], (unsigned long long)s.file_size, (unsigned long long)s.unit_size,
                (unsigned long long)s.subunit_size, (long long)s.origin, orders[s.byte_order],
                (unsigned long long)s.units, (unsigned long long)s.streams, (unsigned long long)s.records,
                (unsigned long long)s.skipped_ranges, (unsigned long long)s.skipped_bytes);
    } else {
        fprintf(out, "%s: RTC ruler trace container, %llu bytes\n", path, (unsigned long long)s.file_size);
        if (s.has_geometry)
            fprintf(out, "  geometry    Unit %llu, unit %llu, origin %lld, %s-endian\n", (unsigned long long)s.unit_size,
                    (unsigned long long)s.subunit_size, (long long)s.origin, s.byte_order == 2 ? "big" : "little");
        fprintf(out, "  state       %s\n", states[s.state]);
        fprintf(out, "  units       %llu read\n", (unsigned long long)s.units);
        fprintf(out, "  streams     %llu defined\n", (unsigned long long)s.streams);
        fprintf(out, "  records     %llu\n", (unsigned long long)s.records);
        fprintf(out, "  skipped     %llu bytes in %llu ranges\n", (unsigned long long)s.skipped_bytes,
                (unsigned long long)s.skipped_ranges);
    }
    diag_report(opts ? opts->diag : NULL, path, r);
    st = verdict(r, err, path);
    atf_rtc_reader_close(r);
    return st;
}
