/* Target rtc_roundtrip: records through atf_rtc_writer, read back.
 *
 * Input: a program of one-byte operations: define a variable-length or a
 * fixed-length stream (length from the next byte), write a record to one
 * of the streams (length from the next two bytes, up to 3 KiB, so records
 * span frames, units and Units; its bytes from the input), write a record
 * of the wrong length to a fixed stream (refused). Writer options from the
 * end: Unit 2 KiB to 16 KiB, unit 2 KiB up to the Unit, the Crc kind, the
 * byte order; then a cut position. Properties:
 *  - the writer accepts exactly the calls the API allows (ATF_E_LENGTH for
 *    a wrong fixed length, ATF_E_ARG for an unknown stream);
 *  - the file read back (reader invariants, fuzz_rtc.h) is complete, with
 *    no finding of any clause; its records are exactly those written, in
 *    order, with their streams and bytes; every full Unit is verified by
 *    the Crc kind asked for; the byte order is the one asked for; the
 *    summary has the Unit and unit sizes asked for;
 *  - the file cut at the start and at the end (positions from the end of
 *    the input) recovers exactly what SPEC-RTC 8.2 says (fz_rtc_cut_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

static int sink(void *user, const void *p, size_t n)
{
    fz_buf_put((fz_buf *)user, p, n);
    return 0;
}

typedef struct wrec {
    uint64_t stream;
    size_t off, size;   /* into the input's byte pool */
} wrec;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    atf_rtc_writer_options o = ATF_RTC_WRITER_OPTIONS_INIT;
    unsigned ue = (unsigned)fz_range(&pr, 0, 3), se = (unsigned)fz_range(&pr, 0, ue);
    o.unit_size = (uint64_t)2048 << ue;
    o.subunit_size = (uint64_t)2048 << se;
    o.crc = fz_bool(&pr) ? ATF_RTC_CRC_REF : ATF_RTC_CRC_32;
    o.big_endian = fz_bool(&pr);
    size_t cut_a = (size_t)fz_u32(&pr), cut_b = (size_t)fz_u32(&pr);
    static uint8_t pool[4096];
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = size ? data[i % size] ^ (uint8_t)(i >> 4) : (uint8_t)i;

    fz_buf out = { 0 };
    atf_rtc_writer *w = NULL;
    atf_error err;
    FZ_CHECK(atf_rtc_writer_create(&w, &o, sink, &out, &err) == ATF_OK, "create: %s", err.message);
    uint64_t ids[16];
    int64_t lens[16];
    size_t nids = 0, nw = 0;
    wrec *recs = calloc(256, sizeof *recs);
    fz_stream in = { data, pr.left, 0 };
    while (fz_stream_left(&in) && nw < 256) {
        uint8_t op = fz_next_u8(&in);
        if (op % 8 == 0 && nids < 16) {
            int fixed = op & 8;
            char def[96];
            int64_t len = fixed ? fz_next_u8(&in) % 40 : -1;
            if (fixed)
                snprintf(def, sizeof def, "{\"name\":\"f%zu\",\"length\":%lld}", nids, (long long)len);
            else
                snprintf(def, sizeof def, "{\"name\":\"v%zu\",\"format\":\"raw\"}", nids);
            FZ_CHECK(atf_rtc_writer_stream(w, def, &ids[nids], &err) == ATF_OK, "stream %s: %s", def, err.message);
            FZ_CHECK(ids[nids] == ATF_RTC_FIRST_USER_ID + nids, "stream %zu got id %llu", nids,
                     (unsigned long long)ids[nids]);
            lens[nids++] = len;
        } else if (op % 8 == 1) {
            uint8_t junk = 0;
            FZ_CHECK(atf_rtc_writer_write(w, ATF_RTC_FIRST_USER_ID + nids, &junk, 1, &err) == ATF_E_ARG,
                     "a write to an undefined stream");
        } else if (nids) {
            size_t s = fz_next_u8(&in) % nids;
            size_t len = lens[s] >= 0 ? (size_t)lens[s] : fz_next_u16(&in) % 3072;
            size_t off = fz_next_u8(&in) * 4u % (sizeof pool - len);
            if (lens[s] >= 0 && op % 8 == 2) {
                FZ_CHECK(atf_rtc_writer_write(w, ids[s], pool + off, len + 1, &err) == ATF_E_LENGTH,
                         "a fixed stream took %zu bytes", len + 1);
                continue;
            }
            FZ_CHECK(atf_rtc_writer_write(w, ids[s], pool + off, len, &err) == ATF_OK, "write %zu bytes: %s", len,
                     err.message);
            recs[nw++] = (wrec){ ids[s], off, len };
        }
    }
    FZ_CHECK(atf_rtc_writer_finish(w, &err) == ATF_OK, "finish: %s", err.message);
    size_t n;
    uint8_t *f = fz_buf_exact(&out, &n);

    fz_rtc_read rd;
    fz_rtc_check_reader(f, n, &rd);
    FZ_CHECK(rd.sum.state == ATF_RTC_COMPLETE,
             "our writer's file (%zu bytes, U %llu, u %llu): state %d, %zu findings", n,
             (unsigned long long)o.unit_size, (unsigned long long)o.subunit_size, rd.sum.state,
             atf_rtc_reader_finding_count(rd.r));
    for (size_t i = 0; i < atf_rtc_reader_finding_count(rd.r); i++) {
        atf_finding fd;
        atf_rtc_reader_finding(rd.r, i, &fd);
        FZ_CHECK(0, "our writer's file: finding %s at %llu: %s", fd.clause ? fd.clause : "remark",
                 (unsigned long long)fd.offset, fd.message);
    }
    FZ_CHECK(rd.nrec == nw, "%zu records written, %zu read", nw, rd.nrec);
    for (size_t i = 0; i < nw; i++)
        FZ_CHECK(rd.recs[i].stream == recs[i].stream && rd.recs[i].size == recs[i].size &&
                     (recs[i].size == 0 || !memcmp(rd.recs[i].payload, pool + recs[i].off, recs[i].size)),
                 "record %zu (stream %llu, %zu bytes) does not read back", i, (unsigned long long)recs[i].stream,
                 recs[i].size);
    if (n) {
        FZ_CHECK(rd.sum.unit_size == o.unit_size && rd.sum.subunit_size == o.subunit_size &&
                     rd.sum.byte_order == (o.big_endian ? 2 : 1) && rd.sum.origin == 0,
                 "geometry: U %llu u %llu order %d origin %lld", (unsigned long long)rd.sum.unit_size,
                 (unsigned long long)rd.sum.subunit_size, rd.sum.byte_order, (long long)rd.sum.origin);
        for (size_t i = 0; i < rd.sum.units; i++) {
            atf_rtc_unit_info u;
            atf_rtc_reader_unit(rd.r, i, &u);
            FZ_CHECK(u.crc && !strcmp(u.crc, o.crc == ATF_RTC_CRC_REF ? "rtc-ref" : "crc-32"), "Unit %zu: Crc %s", i,
                     u.crc ? u.crc : "none");
        }
        size_t a = cut_a % n, b = cut_b % (n + 1);
        fz_rtc_read c;
        uint8_t *s = malloc(n - a);
        memcpy(s, f + a, n - a);
        fz_rtc_check_reader(s, n - a, &c);
        const char *why = fz_rtc_cut_check(f, &rd, n, a, n, &c);
        FZ_CHECK(!why, "cut at the start at %zu of %zu: %s", a, n, why);
        fz_rtc_read_free(&c);
        free(s);
        s = malloc(b ? b : 1);
        memcpy(s, f, b);
        fz_rtc_check_reader(s, b, &c);
        why = fz_rtc_cut_check(f, &rd, n, 0, b, &c);
        FZ_CHECK(!why, "cut at the end at %zu of %zu: %s", b, n, why);
        fz_rtc_read_free(&c);
        free(s);
    }
    fz_rtc_read_free(&rd);
    free(recs);
    free(f);
    return 0;
}
