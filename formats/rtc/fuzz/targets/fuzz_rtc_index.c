/* Target rtc_index: the entries of an index frame (SPEC-RTC 4).
 *
 * Input: the payload of the index frame at Unit 0's unit boundary (3073) of
 * a synthesized file (U = 4096, u = 2048; Meta defines stream 9, written
 * three times before the boundary; padding, a full Unit with its Crc).
 * Properties, against the harness's own entry parser:
 *  - RTC-IDX-001 exactly when the payload is not whole entries (ULEB128
 *    odd id, ULEB128 even offset);
 *  - else RTC-IDX-002 exactly when an entry names a stream that is neither
 *    indexed built-in (3, 4, 5, 7, 8) nor 9; RTC-IDX-003 exactly when an
 *    entry of a good stream points (back from 3073) into the file at
 *    anything but a frame of that stream (the Index at 1025, the Meta, the
 *    Platform, the three records); RTC-IDX-005 exactly when the ids are not
 *    strictly ascending;
 *  - the file is damaged exactly when an error clause is expected; the
 *    three records before the boundary are always recovered; the reader's
 *    invariants hold (fuzz_rtc.h). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1000)
        return 0;
    static const char meta[] = "[{\"id\":9,\"name\":\"s\"},10]";
    static const uint64_t ids[] = { 9 };
    fz_buf b = { 0 };
    fz_rtc_head(&b, 4096, 2048, meta, sizeof meta - 1, ids, 1);
    uint64_t meta_at = 0, plat_at = b.n - 5, recs[3];
    /* the Meta frame: after the Index frame, which follows the Marker */
    {
        uint64_t h, l;
        size_t hu, lu;
        FZ_CHECK(fz_rtc_uleb(b.p + 1025, b.n - 1025, &h, &hu) == 1 &&
                     fz_rtc_uleb(b.p + 1025 + hu, b.n - 1025 - hu, &l, &lu) == 1,
                 "the head's Index");
        meta_at = 1025 + hu + lu + l;
    }
    for (int i = 0; i < 3; i++) {
        recs[i] = b.n;
        fz_rtc_put_frame(&b, 9, 0, 1, "record", 6);
    }
    fz_rtc_pad_to(&b, 3073);
    fz_rtc_put_frame(&b, ATF_RTC_SUBINDEX, 0, 1, data, size);
    fz_rtc_pad_to(&b, 4091);
    fz_rtc_put_crc(&b, 0, 0);
    size_t n;
    uint8_t *f = fz_buf_exact(&b, &n);

    /* The model. */
    int idx1 = 0, idx2 = 0, idx3 = 0, idx5 = 0;
    uint64_t last = 0;
    int first = 1;
    for (size_t pos = 0; pos < size;) {
        uint64_t e, d;
        size_t eu, du;
        if (fz_rtc_uleb(data + pos, size - pos, &e, &eu) != 1 || !(e & 1) ||
            fz_rtc_uleb(data + pos + eu, size - pos - eu, &d, &du) != 1 || (d & 1)) {
            idx1 = 1;
            break;
        }
        pos += eu + du;
        uint64_t id = e >> 1, dist = d >> 1;
        if (!first && id <= last)
            idx5 = 1;
        first = 0;
        last = id;
        if (id != 3 && id != 4 && id != 5 && id != 7 && id != 8 && id != 9) {
            idx2 = 1;
            continue;
        }
        if (dist == 0 || dist > 3073)
            continue;   /* none yet, or before the file: not checked */
        uint64_t t = 3073 - dist;
        int ok = (id == 3 && t == 1025) || (id == 5 && t == meta_at) || (id == 7 && t == plat_at) ||
                 (id == 9 && (t == recs[0] || t == recs[1] || t == recs[2]));
        idx3 |= !ok;
    }
    fz_rtc_read rd;
    fz_rtc_check_reader(f, n, &rd);
    uint64_t c1 = fz_rtc_count(&rd, "RTC-IDX-001"), c2 = fz_rtc_count(&rd, "RTC-IDX-002"),
             c3 = fz_rtc_count(&rd, "RTC-IDX-003"), c5 = fz_rtc_count(&rd, "RTC-IDX-005");
    FZ_CHECK(!!c1 == idx1, "RTC-IDX-001 %llu times, the model %d", (unsigned long long)c1, idx1);
    if (!idx1) {
        FZ_CHECK(!!c2 == idx2, "RTC-IDX-002 %llu times, the model %d", (unsigned long long)c2, idx2);
        FZ_CHECK(!!c3 == idx3, "RTC-IDX-003 %llu times, the model %d", (unsigned long long)c3, idx3);
        FZ_CHECK(!!c5 == idx5, "RTC-IDX-005 %llu times, the model %d", (unsigned long long)c5, idx5);
    }
    int err = idx1 || idx2 || idx3;
    FZ_CHECK((rd.sum.state == ATF_RTC_DAMAGED) == err, "state %d, the model %s", rd.sum.state,
             err ? "damaged" : "complete");
    FZ_CHECK(rd.nrec == 3, "%zu records, 3 written", rd.nrec);
    for (int i = 0; i < 3; i++)
        FZ_CHECK(rd.recs[i].offset == recs[i], "record %d at %llu, written at %llu", i,
                 (unsigned long long)rd.recs[i].offset, (unsigned long long)recs[i]);
    fz_rtc_read_free(&rd);
    free(f);
    return 0;
}
