/* Target rtc_clock: clocks (SPEC-RTC 7) written by our writer, read back.
 *
 * Input: a program of one-byte operations writing the clocks A (absolute;
 * uint32, float64 or uleb128, with or without gain and offset), D (a delta
 * clock on A, int16, with or without gain) and T (absolute, timespec), and
 * records of three streams timed by A, D and T. Parameters from the end
 * pick A's format, the gains, the offset and the Unit size. Properties,
 * against the harness's own clock model (value x gain + offset in that
 * order; a delta clock's time is A's current time plus the delta; a clock
 * record has the time it sets; a stream's record the current time of its
 * clock):
 *  - every record read back has the model's time, bit for bit, or no time
 *    exactly when the model's clock has none (D before any A: RTC-CLK-004);
 *  - RTC-CLK-003 is reported exactly when a clock's time decreases or a
 *    delta is negative; until then every time is compared;
 *  - RTC-CLK-004 is reported exactly when D is written before any A;
 *  - no other clause is found. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

static int sink(void *user, const void *p, size_t n)
{
    fz_buf_put((fz_buf *)user, p, n);
    return 0;
}

typedef struct mtime {
    int has;
    double t;
} mtime;

static const double gains[] = { 1e-6, 0.5, 2.0, 1e-9, 3.25, 1e-3 };
static const double offsets[] = { 100.5, -7.0, 1e9, 0.125 };

static const char *const afmts[] = { "uint32", "float64", "uleb128" };

/* The clock model: A's format, the gains and the offset, the current time
 * of each clock and the clauses the program earns. */
typedef struct clocks {
    int afmt, ag, ao, dg;
    double again, aoff, dgain;
    mtime ta, td, tt;
    int clk003, clk004;
    uint64_t A, D, T, SA, SD, ST;   /* stream ids */
} clocks;

/* A value of clock A into b (*n bytes), in A's format: its time. */
static mtime write_a(clocks *c, fz_stream *in, uint8_t *b, size_t *n)
{
    double v;
    uint32_t u = fz_next_u32(in);
    if (c->afmt == 0) {
        b[0] = (uint8_t)u, b[1] = (uint8_t)(u >> 8), b[2] = (uint8_t)(u >> 16), b[3] = (uint8_t)(u >> 24);
        *n = 4;
        v = (double)u;
    } else if (c->afmt == 1) {
        v = (double)u / 16.0;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        for (int i = 0; i < 8; i++)
            b[i] = (uint8_t)(bits >> (8 * i));
        *n = 8;
    } else {
        uint64_t x = u;
        do {
            b[(*n)++] = (uint8_t)((x & 0x7F) | (x > 0x7F ? 0x80 : 0));
            x >>= 7;
        } while (x);
        v = (double)u;
    }
    if (c->ag)
        v = v * c->again;
    if (c->ao)
        v = v + c->aoff;
    if (c->ta.has && v < c->ta.t)
        c->clk003 = 1;
    c->ta = (mtime){ 1, v };
    return c->ta;
}

/* A delta of clock D (int16) into b: its time, none before any A. */
static mtime write_d(clocks *c, fz_stream *in, uint8_t *b, size_t *n)
{
    int16_t dv = (int16_t)fz_next_u16(in);
    b[0] = (uint8_t)dv, b[1] = (uint8_t)((uint16_t)dv >> 8);
    *n = 2;
    double v = (double)dv;
    if (c->dg)
        v = v * c->dgain;
    if (v < 0)
        c->clk003 = 1;
    if (!c->ta.has) {
        c->clk004 = 1;
        c->td = (mtime){ 0, 0 };
    } else {
        double nt = c->ta.t + v;
        if (c->td.has && nt < c->td.t)
            c->clk003 = 1;
        c->td = (mtime){ 1, nt };
    }
    return c->td;
}

/* A timespec of clock T into b: its time. */
static mtime write_t(clocks *c, fz_stream *in, uint8_t *b, size_t *n)
{
    uint64_t sec = fz_next_u32(in);
    uint32_t ns = fz_next_u32(in) % 1000000000u;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(sec >> (8 * i));
    for (int i = 0; i < 4; i++)
        b[8 + i] = (uint8_t)(ns >> (8 * i));
    *n = 12;
    double v = (double)sec + (double)ns / 1e9;
    if (c->tt.has && v < c->tt.t)
        c->clk003 = 1;
    c->tt = (mtime){ 1, v };
    return c->tt;
}

/* One operation: a clock record (A, D or T) or a record of a timed stream;
 * *sid and the model's time of the record written. */
static mtime run_op(clocks *c, atf_rtc_writer *w, fz_stream *in, uint64_t *sid)
{
    uint8_t op = fz_next_u8(in) % 6, b[16];
    size_t n = 0;
    mtime t;
    atf_error err;
    if (op == 0) {
        t = write_a(c, in, b, &n);
        *sid = c->A;
    } else if (op == 1) {
        t = write_d(c, in, b, &n);
        *sid = c->D;
    } else if (op == 2) {
        t = write_t(c, in, b, &n);
        *sid = c->T;
    } else {
        *sid = op == 3 ? c->SA : op == 4 ? c->SD : c->ST;
        t = op == 3 ? c->ta : op == 4 ? c->td : c->tt;
    }
    FZ_CHECK(atf_rtc_writer_write(w, *sid, b, n, &err) == ATF_OK, "write: %s", err.message);
    return c->clk003 ? (mtime){ -1, 0 } : t;
}

/* The clocks and the streams they time, defined from the parameters. */
static void define_streams(clocks *c, atf_rtc_writer *w)
{
    char def[256];
    atf_error err;
    snprintf(def, sizeof def, "{\"name\":\"A\",\"format\":\"%s\",\"clock\":true%s%.17g%s%.17g}", afmts[c->afmt],
             c->ag ? ",\"gain\":" : ",\"x\":", c->again, c->ao ? ",\"offset\":" : ",\"y\":", c->aoff);
    FZ_CHECK(atf_rtc_writer_stream(w, def, &c->A, &err) == ATF_OK, "A");
    snprintf(def, sizeof def, "{\"name\":\"D\",\"format\":\"int16\",\"clock\":true,\"delta\":\"A\"%s%.17g}",
             c->dg ? ",\"gain\":" : ",\"x\":", c->dgain);
    FZ_CHECK(atf_rtc_writer_stream(w, def, &c->D, &err) == ATF_OK, "D");
    FZ_CHECK(atf_rtc_writer_stream(w, "{\"name\":\"T\",\"format\":\"timespec\",\"clock\":true}", &c->T, &err) == ATF_OK,
             "T");
    FZ_CHECK(atf_rtc_writer_stream(w, "{\"name\":\"sa\",\"clock\":\"A\"}", &c->SA, &err) == ATF_OK, "sa");
    FZ_CHECK(atf_rtc_writer_stream(w, "{\"name\":\"sd\",\"clock\":\"D\"}", &c->SD, &err) == ATF_OK, "sd");
    FZ_CHECK(atf_rtc_writer_stream(w, "{\"name\":\"st\",\"clock\":\"T\"}", &c->ST, &err) == ATF_OK, "st");
}

/* What was read back: the streams, the times, and the clock clauses only. */
static void check_read(const clocks *c, const fz_rtc_read *rd, const mtime *want, const uint64_t *sids, size_t nw)
{
    for (size_t i = 0; i < nw && i < rd->nrec; i++)
        FZ_CHECK(rd->recs[i].stream == sids[i], "record %zu: stream %llu read, %llu written", i,
                 (unsigned long long)rd->recs[i].stream, (unsigned long long)sids[i]);
    FZ_CHECK(rd->nrec == nw, "%zu records written, %zu read", nw, rd->nrec);
    for (size_t i = 0; i < nw; i++) {
        if (want[i].has < 0)
            break;   /* after a clause of RTC-CLK-003 times are not compared */
        atf_rtc_record rec;
        atf_rtc_reader_record(rd->r, i, &rec);
        FZ_CHECK(rec.has_time == want[i].has && (!rec.has_time || rec.time == want[i].t ||
                                                  (isnan(rec.time) && isnan(want[i].t))),
                 "record %zu (stream %llu): time %d %.17g, the model %d %.17g (A %s gain %d %.17g offset %d %.17g, "
                 "D gain %d %.17g)",
                 i, (unsigned long long)rec.stream, rec.has_time, rec.time, want[i].has, want[i].t, afmts[c->afmt],
                 c->ag, c->again, c->ao, c->aoff, c->dg, c->dgain);
    }
    FZ_CHECK(!!fz_rtc_count(rd, "RTC-CLK-003") == c->clk003, "RTC-CLK-003 %llu times, the model %d",
             (unsigned long long)fz_rtc_count(rd, "RTC-CLK-003"), c->clk003);
    FZ_CHECK(!!fz_rtc_count(rd, "RTC-CLK-004") == c->clk004, "RTC-CLK-004 %llu times, the model %d",
             (unsigned long long)fz_rtc_count(rd, "RTC-CLK-004"), c->clk004);
    for (size_t i = 0; i < atf_rtc_reader_finding_count(rd->r); i++) {
        atf_finding fd;
        atf_rtc_reader_finding(rd->r, i, &fd);
        FZ_CHECK(!fd.clause || !strcmp(fd.clause, "RTC-CLK-003") || !strcmp(fd.clause, "RTC-CLK-004"),
                 "finding %s at %llu: %s", fd.clause, (unsigned long long)fd.offset, fd.message);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    clocks c = { 0 };
    c.afmt = (int)fz_range(&pr, 0, 2);   /* uint32, float64, uleb128 */
    c.ag = fz_bool(&pr), c.ao = fz_bool(&pr), c.dg = fz_bool(&pr);
    c.again = gains[fz_u8(&pr) % 6], c.aoff = offsets[fz_u8(&pr) % 4], c.dgain = gains[fz_u8(&pr) % 6];
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    o.unit_size = o.subunit_size = (uint64_t)2048 << fz_range(&pr, 0, 2);

    fz_buf out = { 0 };
    atf_rtc_writer *w = NULL;
    atf_error err;
    FZ_CHECK(atf_rtc_writer_create(&w, &o, sink, &out, &err) == ATF_OK, "create");
    define_streams(&c, w);

    size_t cap = 512, nw = 0;
    mtime *want = calloc(cap, sizeof *want);
    uint64_t *sids = calloc(cap, sizeof *sids);
    fz_stream in = { data, pr.left, 0 };
    while (fz_stream_left(&in) && nw < cap) {
        want[nw] = run_op(&c, w, &in, &sids[nw]);
        nw++;
    }
    FZ_CHECK(atf_rtc_writer_finish(w, &err) == ATF_OK, "finish");
    size_t n;
    uint8_t *f = fz_buf_exact(&out, &n);
    fz_rtc_read rd;
    fz_rtc_check_reader(f, n, &rd);
    check_read(&c, &rd, want, sids, nw);
    fz_rtc_read_free(&rd);
    free(want);
    free(sids);
    free(f);
    return 0;
}
