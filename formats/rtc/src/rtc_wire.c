/* RTC bytes (conformance/SPEC-RTC.md 1-3, 8.1): LEB128 bounded to 10 bytes,
 * the two Crc algorithms, the Marker scan. */
#include <string.h>

#include <atf/crc32c.h>
#include <atf/rtc.h>

#include "bytes.h"
#include "crc_slice.h"
#include "rtc_internal.h"

atf_status atf_rtc_uleb_decode(const uint8_t *p, size_t avail, uint64_t *value, size_t *used, int *shortest)
{
    uint64_t v = 0;
    int over = 0;
    for (size_t i = 0;; i++) {
        /* ten bytes that all continue: too long, even when the data ends there */
        if (i >= ATF_RTC_MAX_LEB)
            return ATF_E_LIMIT;
        if (i >= avail)
            return ATF_E_TRUNCATED;
        uint8_t c = p[i];
        uint64_t bits = c & 0x7Fu;
        /* byte 9 carries bit 63 only: anything above is >= 2^64 */
        if (i == 9 && bits > 1)
            over = 1;
        v |= bits << (7 * i);
        if (!(c & 0x80)) {
            if (over)
                return ATF_E_LIMIT;
            *value = v;
            *used = i + 1;
            if (shortest)
                *shortest = i == 0 || c != 0;
            return ATF_OK;
        }
    }
}

atf_status atf_rtc_sleb_decode(const uint8_t *p, size_t avail, int64_t *value, size_t *used)
{
    uint64_t v = 0;
    unsigned shift = 0;
    for (size_t i = 0;; i++) {
        /* ten bytes that all continue: too long, even when the data ends there */
        if (i >= ATF_RTC_MAX_LEB)
            return ATF_E_LIMIT;
        if (i >= avail)
            return ATF_E_TRUNCATED;
        uint8_t c = p[i];
        if (shift < 64)
            v |= (uint64_t)(c & 0x7Fu) << shift;
        shift += 7;
        if (!(c & 0x80)) {
            /* The value must fit int64: bits from 63 up all equal the sign. */
            int neg = (c & 0x40) != 0;
            if (shift < 64) {
                if (neg)
                    v |= ~(uint64_t)0 << shift;
            } else {
                /* byte 9 (shift 63..69): its 7 bits are bit 63 and sign copies */
                unsigned top = c & 0x7Fu;
                if (top != (neg ? 0x7Fu : 0u))
                    return ATF_E_LIMIT;
            }
            memcpy(value, &v, sizeof v);
            *used = i + 1;
            return ATF_OK;
        }
    }
}

size_t atf_rtc_uleb_encode(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t b = (uint8_t)(v & 0x7F);
        v >>= 7;
        dst[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

size_t atf_rtc_sleb_encode(uint8_t *dst, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t b = (uint8_t)((uint64_t)v & 0x7F);
        v = v < 0 ? ~(~v >> 7) : v >> 7;   /* arithmetic shift, spelled out */
        if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
            dst[n++] = b;
            return n;
        }
        dst[n++] = (uint8_t)(b | 0x80);
    }
}

/* ---- Crc -------------------------------------------------------------------- */

/* crc-32 is the shared CRC-32/IEEE. rtc-ref has no global state: a reader
 * or writer builds its tables once (rtc_crc_tables) and keeps them; the
 * public one-shot function builds them on the stack per call. */

void rtc_crc_tables(rtc_crc_tab *t)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t m = i << 24;
        for (int k = 0; k < 8; k++)
            m = (m & 0x80000000u) ? (m << 1) ^ 0x04C11DB7u : m << 1;
        t->ref[0][i] = m;
    }
    /* The update is c = (c >> 8) ^ T[(c ^ byte) & 0xFF] with T linear:
     * slicing by 8 applies as to a reflected CRC. */
    atf_crc_slice_tables(t->ref);
}

uint32_t rtc_crc_ref_t(const rtc_crc_tab *t, uint32_t crc, const uint8_t *p, size_t n)
{
    return ~atf_crc_slice8(~crc, p, n, (const uint32_t (*)[256])t->ref);
}

uint32_t atf_rtc_crc32(uint32_t crc, const void *p, size_t n)
{
    return atf_crc32_ieee(crc, p, n);
}

uint32_t atf_rtc_crc_ref(uint32_t crc, const void *p, size_t n)
{
    rtc_crc_tab t;
    rtc_crc_tables(&t);
    return rtc_crc_ref_t(&t, crc, (const uint8_t *)p, n);
}

/* ---- Markers -------------------------------------------------------------------- */

/* Bytes of B9 from p (at most max). */
static size_t b9_run(const uint8_t *p, size_t max)
{
    size_t i = 0;
    while (i < max && p[i] == ATF_RTC_MARKER_BYTE)
        i++;
    return i;
}

/* A Marker's 1024 B9 cover exactly one offset that is a multiple of 1024, so
 * only those offsets are looked at; a B9 there is followed back and forth to
 * its run's ends (each byte at most twice over a whole scan: the next look
 * is past the run), and the run is a Marker's when it is exactly 1024 long
 * and 04 comes before it. Files full of 04 bytes cost nothing more. */
size_t atf_rtc_find_marker(const uint8_t *d, size_t n, size_t from)
{
    const size_t M = ATF_RTC_MARKER_SIZE - 1;   /* 1024 */
    if (from >= n)
        return n;
    size_t k = (from + M) / M * M;              /* the first multiple of M past from: runs start there or later */
    while (k < n) {
        if (d[k] != ATF_RTC_MARKER_BYTE) {
            k += M;
            continue;
        }
        size_t s = k, e = k + 1;
        while (s > from + 1 && d[s - 1] == ATF_RTC_MARKER_BYTE)
            s--;
        while (e < n && d[e] == ATF_RTC_MARKER_BYTE)
            e++;
        if (e - s == M && d[s - 1] == (ATF_RTC_MARKER << 1))
            return s - 1;
        k = (e / M + 1) * M;
    }
    return n;
}

int rtc_is_marker_prefix(const uint8_t *d, size_t n)
{
    if (n == 0)
        return 1;
    if (d[0] != (ATF_RTC_MARKER << 1))
        return 0;
    size_t m = n - 1 < 1024 ? n - 1 : 1024;
    return b9_run(d + 1, m) == m;
}

int atf_rtc_sniff(const void *head, size_t n, const char *path)
{
    const uint8_t *d = (const uint8_t *)head;
    if (n >= 2 && d[0] == (ATF_RTC_MARKER << 1) && rtc_is_marker_prefix(d, n))
        return 1;
    size_t pl = path ? strlen(path) : 0;
    return pl >= 4 && strcmp(path + pl - 4, ".rtc") == 0;
}
