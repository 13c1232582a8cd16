/* Target wtf_strings: atf_wtf_strings_init / atf_wtf_strings_get.
 *
 * Input: a string table part. Parameters from the end: ordinals to probe.
 * Properties (SPEC-WTF 3):
 *  - init succeeds; count is the number of NUL bytes; `unterminated` says
 *    exactly whether bytes follow the last NUL;
 *  - string i is the i-th NUL-terminated run, terminated in the table, with
 *    its length; ordinal count (and any other past the table) is
 *    ATF_E_RANGE; 0xFFFFFFFF is null and 0xFFFFFFFE the empty string;
 *  - an empty table (NULL data) has no strings; free can be called twice. */
#include <string.h>

#include "fuzz_wtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > UINT32_MAX)
        return 0;
    fz_params p = fz_params_overlay(data, size);
    atf_wtf_strings st;
    atf_error err;
    FZ_CHECK(atf_wtf_strings_init(&st, data, (uint32_t)size, &err) == ATF_OK, "init");
    uint32_t nuls = 0, last = 0;
    for (size_t i = 0; i < size; i++)
        if (data[i] == 0) {
            nuls++;
            last = (uint32_t)i + 1;
        }
    FZ_CHECK(st.count == nuls && st.size == size, "%u strings, %u NULs", st.count, nuls);
    FZ_CHECK(st.unterminated == (last < size), "unterminated %u, last NUL ends at %u of %zu", st.unterminated, last,
             size);
    const char *s;
    uint32_t len, at = 0;
    for (uint32_t i = 0; i < nuls; i++) {
        size_t want = strlen((const char *)data + at);
        FZ_CHECK(atf_wtf_strings_get(&st, i, &s, &len) == ATF_OK, "get %u", i);
        FZ_CHECK(s == (const char *)data + at && len == want && s[len] == 0, "string %u: %u bytes at %td, the table "
                 "has %zu at %u", i, len, s - (const char *)data, want, at);
        at += (uint32_t)want + 1;
    }
    FZ_CHECK(atf_wtf_strings_get(&st, nuls, &s, &len) == ATF_E_RANGE, "ordinal past the table");
    FZ_CHECK(atf_wtf_strings_get(&st, ATF_WTF_STRING_NULL, &s, &len) == ATF_OK && s == NULL && len == 0, "null");
    FZ_CHECK(atf_wtf_strings_get(&st, ATF_WTF_STRING_EMPTY, &s, &len) == ATF_OK && s && !s[0] && len == 0, "empty");
    for (int k = 0; k < 4; k++) {
        uint32_t ord = fz_u32(&p);
        atf_status r = atf_wtf_strings_get(&st, ord, &s, &len);
        int ok = ord < nuls || ord == ATF_WTF_STRING_NULL || ord == ATF_WTF_STRING_EMPTY;
        FZ_CHECK(r == (ok ? ATF_OK : ATF_E_RANGE), "ordinal %u: %s", ord, atf_status_name(r));
    }
    atf_wtf_strings_free(&st);
    atf_wtf_strings_free(&st);
    FZ_CHECK(atf_wtf_strings_init(&st, NULL, 0, &err) == ATF_OK && st.count == 0 && !st.unterminated, "empty table");
    FZ_CHECK(atf_wtf_strings_get(&st, 0, &s, &len) == ATF_E_RANGE, "ordinal 0 of an empty table");
    atf_wtf_strings_free(&st);
    return 0;
}
