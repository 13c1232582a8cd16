/* Target rtc_file: the reader on a whole file and on any slice of it
 * (SPEC-RTC 8.2: a reader needs no beginning and no end).
 *
 * Input: an RTC file (seeds: the golden corpus, our writer's files, cuts
 * and damaged copies). Parameters from the end choose a slice [a, b).
 * Properties:
 *  - the reader's invariants (fuzz_rtc.h) on the file and on the slice,
 *    each in a buffer of exactly its size (ASan sees any overread); the
 *    work is bounded (the engines' timeouts);
 *  - when the file is complete (read whole, no error clause, not cut), its
 *    cut at the start (the suffix from a) and its cut at the end (the first
 *    b bytes) recover exactly what SPEC-RTC 8.2 says, computed from the
 *    uncut file's record and Unit tables (fz_rtc_cut_check). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

static void slice_check(const uint8_t *data, size_t size, const fz_rtc_read *whole, size_t a, size_t b)
{
    uint8_t *s = malloc(b - a ? b - a : 1);
    memcpy(s, data + a, b - a);
    fz_rtc_read rd;
    fz_rtc_check_reader(s, b - a, &rd);
    if (whole && (a == 0 || b == size)) {
        const char *why = fz_rtc_cut_check(data, whole, size, a, b, &rd);
        FZ_CHECK(why == NULL, "the complete file cut to [%zu, %zu) of %zu: %s", a, b, size, why);
    }
    fz_rtc_read_free(&rd);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    size_t a = (size_t)fz_range(&pr, 0, size), b = (size_t)fz_range(&pr, 0, size);
    if (a > b) {
        size_t t = a;
        a = b;
        b = t;
    }
    fz_rtc_read whole;
    fz_rtc_check_reader(data, size, &whole);
    int complete = whole.sum.state == ATF_RTC_COMPLETE;
    slice_check(data, size, NULL, a, b);
    slice_check(data, size, complete ? &whole : NULL, a, size);
    slice_check(data, size, complete ? &whole : NULL, 0, b);
    fz_rtc_read_free(&whole);
    return 0;
}
