/* Target rtc_leb128: atf_rtc_uleb_decode, atf_rtc_sleb_decode and the two
 * encoders (SPEC-RTC 1 and 6).
 *
 * Input: bytes decoded from every offset; parameters from the end give
 * values to encode. Properties, against the harness's own decoders:
 *  - both decoders return exactly the harness's verdict (a value and its
 *    size, cut: ATF_E_TRUNCATED, over 10 bytes or out of range:
 *    ATF_E_LIMIT), never read past the bytes given;
 *  - `shortest` is 1 exactly when no shorter encoding of the value exists
 *    (the encoder's size);
 *  - encode -> decode gives the value back in the encoder's size, which is
 *    the shortest (a one-byte-shorter prefix is cut), for unsigned and
 *    signed values, and re-encoding a decoded value gives its shortest form. */
#include <string.h>

#include "fuzz_rtc.h"

static size_t ushortest(uint64_t v)
{
    size_t k = 1;
    while (v >>= 7)
        k++;
    return k;
}

static size_t sshortest(int64_t v)
{
    /* the number of 7-bit groups that hold v's bits and its sign bit */
    for (size_t k = 1; k < 10; k++) {
        int64_t lo = -((int64_t)1 << (7 * k - 1)), hi = ((int64_t)1 << (7 * k - 1)) - 1;
        if (v >= lo && v <= hi)
            return k;
    }
    return 10;
}

static void roundtrip_u(uint64_t v)
{
    uint8_t b[ATF_RTC_MAX_LEB];
    size_t n = atf_rtc_uleb_encode(b, v), used = 0;
    uint64_t back = 0;
    int sh = 0;
    FZ_CHECK(n == ushortest(v), "uleb %llu encoded in %zu bytes", (unsigned long long)v, n);
    FZ_CHECK(atf_rtc_uleb_decode(b, n, &back, &used, &sh) == ATF_OK && back == v && used == n && sh == 1,
             "uleb %llu does not decode back", (unsigned long long)v);
    FZ_CHECK(atf_rtc_uleb_decode(b, n - 1, &back, &used, NULL) == ATF_E_TRUNCATED, "uleb %llu cut by one byte",
             (unsigned long long)v);
}

static void roundtrip_s(int64_t v)
{
    uint8_t b[ATF_RTC_MAX_LEB];
    size_t n = atf_rtc_sleb_encode(b, v), used = 0;
    int64_t back = 0;
    FZ_CHECK(n == sshortest(v), "sleb %lld encoded in %zu bytes, %zu expected", (long long)v, n, sshortest(v));
    FZ_CHECK(atf_rtc_sleb_decode(b, n, &back, &used) == ATF_OK && back == v && used == n,
             "sleb %lld does not decode back", (long long)v);
    FZ_CHECK(atf_rtc_sleb_decode(b, n - 1, &back, &used) == ATF_E_TRUNCATED, "sleb %lld cut by one byte", (long long)v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t at = 0; at < size && at < 64; at++) {
        const uint8_t *p = data + at;
        size_t avail = size - at;
        uint64_t mv = 0, cv = 0;
        size_t mu = 0, cu = 0;
        int sh = -1;
        int m = fz_rtc_uleb(p, avail, &mv, &mu);
        atf_status st = atf_rtc_uleb_decode(p, avail, &cv, &cu, &sh);
        FZ_CHECK(st == (m == 1 ? ATF_OK : m == 0 ? ATF_E_TRUNCATED : ATF_E_LIMIT), "uleb at %zu: status %d, model %d",
                 at, st, m);
        if (m == 1) {
            FZ_CHECK(cv == mv && cu == mu, "uleb at %zu: %llu in %zu, model %llu in %zu", at, (unsigned long long)cv,
                     cu, (unsigned long long)mv, mu);
            FZ_CHECK(sh == (mu == ushortest(mv)), "uleb at %zu: shortest %d for %llu in %zu bytes", at, sh,
                     (unsigned long long)mv, mu);
            roundtrip_u(mv);
        }
        int64_t ms = 0, cs = 0;
        m = fz_rtc_sleb(p, avail, &ms, &mu);
        st = atf_rtc_sleb_decode(p, avail, &cs, &cu);
        FZ_CHECK(st == (m == 1 ? ATF_OK : m == 0 ? ATF_E_TRUNCATED : ATF_E_LIMIT), "sleb at %zu: status %d, model %d",
                 at, st, m);
        if (m == 1) {
            FZ_CHECK(cs == ms && cu == mu, "sleb at %zu: %lld in %zu, model %lld in %zu", at, (long long)cs, cu,
                     (long long)ms, mu);
            roundtrip_s(ms);
        }
    }
    fz_params pr = fz_params_overlay(data, size);
    uint64_t v = fz_u64(&pr);
    roundtrip_u(v);
    roundtrip_u(v >> (fz_u8(&pr) & 63));
    roundtrip_s((int64_t)v);
    roundtrip_s((int64_t)v >> (fz_u8(&pr) & 63));
    return 0;
}
