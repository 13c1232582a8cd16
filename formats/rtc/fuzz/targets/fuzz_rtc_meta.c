/* Target rtc_meta: Meta and meta JSON (SPEC-RTC 5).
 *
 * Input: the text of Unit 0's Meta record, then (after a 00 byte) the text
 * of a meta record, in a synthesized file (U = u = 2048, a final Crc).
 * Properties, against the harness's reading of the spec with jansson:
 *  - RTC-MET-001 exactly when a record is not JSON text (big integers
 *    allowed) or not an array of objects ending with an integer;
 *  - RTC-MET-002 exactly when an object has no integer id from 9 below the
 *    next free id, or repeats an id of the record;
 *  - RTC-MET-004 exactly when a known property of an object with a good id
 *    has the wrong type, RTC-MET-005 when its length is over 1024;
 *  - RTC-MET-003 exactly when the meta redefines an id of the Meta
 *    differently or lowers the next free id;
 *  - the streams the reader lists are the good ids, in order, each first
 *    defined where the harness says;
 *  - the file is damaged exactly when one of those is expected or a clock
 *    property is wrong (RTC-CLK-001/002, not modelled here); the reader's
 *    invariants hold (fuzz_rtc.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_rtc.h"

typedef struct mmeta {
    int met1, met2, met4, met5;
    json_t *v;
    json_int_t next;
    uint64_t good[1100];
    json_t *obj[1100];
    size_t ngood;
} mmeta;

static int type_ok(const char *key, const json_t *x)
{
    if (!strcmp(key, "id") || !strcmp(key, "length"))
        return json_is_null(x) || (json_is_integer(x) && json_integer_value(x) >= 0);
    if (!strcmp(key, "name") || !strcmp(key, "format") || !strcmp(key, "delta") || !strcmp(key, "stream"))
        return json_is_null(x) || json_is_string(x);
    if (!strcmp(key, "cont"))
        return json_is_boolean(x);
    if (!strcmp(key, "clock"))
        return json_is_null(x) || json_is_boolean(x) || json_is_string(x);
    if (!strcmp(key, "gain") || !strcmp(key, "offset"))
        return json_is_number(x);
    return 1;
}

static void model(mmeta *m, const uint8_t *p, size_t n)
{
    memset(m, 0, sizeof *m);
    m->v = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!m->v)
        m->v = json_loadb((const char *)p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, NULL);
    size_t len = json_is_array(m->v) ? json_array_size(m->v) : 0;
    if (!len || !json_is_integer(json_array_get(m->v, len - 1))) {
        m->met1 = 1;
        return;
    }
    for (size_t i = 0; i + 1 < len; i++)
        if (!json_is_object(json_array_get(m->v, i))) {
            m->met1 = 1;
            return;
        }
    m->next = json_integer_value(json_array_get(m->v, len - 1));
    for (size_t i = 0; i + 1 < len; i++) {
        json_t *o = json_array_get(m->v, i), *id = json_object_get(o, "id");
        int good = json_is_integer(id) && json_integer_value(id) >= 9 && json_integer_value(id) < m->next;
        for (size_t k = 0; good && k < m->ngood; k++)
            good = m->good[k] != (uint64_t)json_integer_value(id);
        if (!good) {
            m->met2 = 1;
            continue;
        }
        m->obj[m->ngood] = o;
        m->good[m->ngood++] = (uint64_t)json_integer_value(id);
        const char *key;
        json_t *x;
        json_object_foreach(o, key, x) {
            if (!type_ok(key, x))
                m->met4 = 1;
        }
        json_t *l = json_object_get(o, "length");
        if (json_is_integer(l) && json_integer_value(l) > 1024)
            m->met5 = 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *z = memchr(data, 0, size);
    size_t n1 = z ? (size_t)(z - data) : size, n2 = z ? size - n1 - 1 : 0;
    if (n1 > 400 || n2 > 400)
        return 0;
    fz_buf b = { 0 };
    fz_rtc_head(&b, 2048, 2048, (const char *)data, n1, NULL, 0);
    if (z)
        fz_rtc_put_frame(&b, ATF_RTC_SUBMETA, 0, 1, z + 1, n2);
    fz_rtc_put_crc(&b, 0, 0);
    size_t n;
    uint8_t *f = fz_buf_exact(&b, &n);

    fz_rtc_read rd;
    fz_rtc_check_reader(f, n, &rd);
    mmeta *M = malloc(sizeof *M), *m = malloc(sizeof *m);
    model(M, data, n1);
    int met[4] = { M->met1, M->met2, M->met4, M->met5 }, met3 = 0;
    size_t want_streams = M->ngood;
    if (z) {
        model(m, z + 1, n2);
        met[0] |= m->met1, met[1] |= m->met2, met[2] |= m->met4, met[3] |= m->met5;
        if (!m->met1) {
            if (!M->met1 && m->next < M->next)
                met3 = 1;
            for (size_t i = 0; i < m->ngood; i++) {
                int known = 0;
                for (size_t k = 0; k < M->ngood && !known; k++)
                    if (M->good[k] == m->good[i]) {
                        known = 1;
                        met3 |= !json_equal(M->obj[k], m->obj[i]);
                    }
                want_streams += !known;
            }
        }
    } else {
        memset(m, 0, sizeof *m);
    }
    static const char *const ids[] = { "RTC-MET-001", "RTC-MET-002", "RTC-MET-004", "RTC-MET-005" };
    for (int i = 0; i < 4; i++)
        FZ_CHECK(!!fz_rtc_count(&rd, ids[i]) == met[i], "%s %llu times, the model %d", ids[i],
                 (unsigned long long)fz_rtc_count(&rd, ids[i]), met[i]);
    FZ_CHECK(!!fz_rtc_count(&rd, "RTC-MET-003") == met3, "RTC-MET-003 %llu times, the model %d",
             (unsigned long long)fz_rtc_count(&rd, "RTC-MET-003"), met3);
    int any = met[0] | met[1] | met[2] | met[3] | met3;
    int clk = fz_rtc_count(&rd, "RTC-CLK-001") || fz_rtc_count(&rd, "RTC-CLK-002");
    FZ_CHECK((rd.sum.state == ATF_RTC_DAMAGED) == (any || clk), "state %d, MET expected %d, CLK %d", rd.sum.state, any,
             clk);
    FZ_CHECK(rd.sum.streams == want_streams, "%llu streams, the model %zu", (unsigned long long)rd.sum.streams,
             want_streams);
    for (size_t i = 0; i < M->ngood && i < rd.sum.streams; i++) {
        uint64_t id, off;
        atf_rtc_reader_stream(rd.r, i, &id, &off, NULL);
        FZ_CHECK(id == M->good[i], "stream %zu: id %llu, the Meta's %llu", i, (unsigned long long)id,
                 (unsigned long long)M->good[i]);
    }
    json_decref(M->v);
    json_decref(m->v);
    free(M);
    free(m);
    fz_rtc_read_free(&rd);
    free(f);
    return 0;
}
