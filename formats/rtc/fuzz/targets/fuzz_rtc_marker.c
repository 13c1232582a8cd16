/* Target rtc_marker: atf_rtc_find_marker from arbitrary offsets, and
 * atf_rtc_sniff (SPEC-RTC 2).
 *
 * Input: bytes (the front may be expanded: a byte 0xFF followed by n means
 * n x B9, so that inputs can hold whole Markers cheaply); parameters from
 * the end choose start offsets. Properties, against a naive scan:
 *  - find_marker(from) is the first offset >= from holding 04, exactly 1024
 *    x B9 and then not B9 (or the end of the data), else the size (a
 *    Marker cut by the end of the data is not found: the reader tells a
 *    cut Marker by its position);
 *  - sniff claims exactly the data starting with 04 and then only B9s (at
 *    least 2 bytes), or a ".rtc" name. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

/* The naive scan: every offset, every byte compared. */
static size_t naive(const uint8_t *d, size_t n, size_t from)
{
    for (size_t i = from; i < n; i++) {
        if (d[i] != 0x04)
            continue;
        size_t k = 1;
        while (k <= 1024 && i + k < n && d[i + k] == 0xB9)
            k++;
        if (k == 1025 && (i + k == n || d[i + k] != 0xB9))
            return i;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    size_t cap = 16384 + 255 * 5 + 1, n = 0;
    uint8_t *d = malloc(cap);
    FZ_CHECK(d != NULL, "out of memory");
    for (size_t i = 0; i < size && n < 16384; i++) {
        if (data[i] == 0xFF && i + 1 < size) {
            size_t k = (size_t)data[++i] * 5;   /* up to 1275 B9s */
            memset(d + n, 0xB9, k);
            n += k;
        } else {
            d[n++] = data[i];
        }
    }
    uint8_t *exact = malloc(n ? n : 1);   /* exactly n bytes: ASan sees overreads */
    memcpy(exact, d, n);
    free(d);
    size_t probes = 1 + fz_u8(&pr) % 8;
    for (size_t k = 0; k <= probes; k++) {
        size_t from = k == 0 ? 0 : (size_t)fz_range(&pr, 0, n);
        size_t got = atf_rtc_find_marker(exact, n, from), want = naive(exact, n, from);
        FZ_CHECK(got == want, "find_marker(%zu) in %zu bytes: %zu, the naive scan %zu", from, n, got, want);
        /* every hit is also the first from one past the previous position */
        if (got < n && got > from)
            FZ_CHECK(atf_rtc_find_marker(exact, n, got) == got, "find_marker(%zu) != %zu", got, got);
    }
    int head = n >= 2 && exact[0] == 0x04;
    for (size_t i = 1; head && i < n && i < 4; i++)
        head = exact[i] == 0xB9;
    FZ_CHECK(atf_rtc_sniff(exact, n < 4 ? n : 4, NULL) == head, "sniff of %zu bytes", n);
    FZ_CHECK(atf_rtc_sniff(exact, n < 4 ? n : 4, "x.rtc") == 1, "sniff by name");
    free(exact);
    return 0;
}
