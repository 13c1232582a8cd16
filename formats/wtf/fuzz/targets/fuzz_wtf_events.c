/* Target wtf_events: event buffers with definitions and arguments, through
 * atf_wtf_decode_event and through the reader's event loop.
 *
 * Input (structure-aware):
 *   u8 k (k % 17 definitions), then per definition: u8 wire selector (wire
 *   id 2 + s % 62), u8 class/flags selector, signature text up to a NUL;
 *   u16 L, then L bytes of string table; the rest is the event buffer.
 * Properties:
 *  - each definition is accepted by the codec (wtf_def_new) exactly when its
 *    signature parses by the grammar, with the same arguments;
 *  - atf_wtf_decode_event walks the buffer event by event exactly as the
 *    harness's own decoder (fz_wtf_model_event, SPEC-WTF 4.1): same sizes,
 *    and where it stops the same status (ATF_E_TRUNCATED, _NOT_FOUND,
 *    _RANGE, _LENGTH) with an error record inside the buffer;
 *  - the same definitions written as wtf.event#define events in front of the
 *    buffer, in a file (header chunk + one event chunk whose string table is
 *    the input's plus the definitions' strings): the reader matches the
 *    model event by event, every argument and array element decoded from
 *    its bytes (fz_wtf_check_reader), and the validator agrees with it
 *    (fz_wtf_check_validator). */
#include <stdlib.h>
#include <string.h>

#include "wtf_internal.h"

#include "fuzz_wtf.h"

#define NDEF_MAX 16

typedef struct input_def {
    uint32_t wire;
    uint16_t cls;
    uint32_t flags;
    const char *sig;
    size_t sig_len;
} input_def;

static const char header_json[] =
    "{\"type\":\"file_header\",\"flags\":[\"has_high_resolution_times\"],\"timebase\":1000.5,"
    "\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"fuzz://events\"}}";

static void direct(const input_def *in, size_t k, const uint8_t *table, uint32_t tlen, const uint8_t *buf, size_t len)
{
    atf_wtf_def **cdefs = calloc(65536, sizeof *cdefs);
    fz_wtf_def **mdefs = calloc(65536, sizeof *mdefs);
    FZ_CHECK(cdefs && mdefs, "oom");
    static const char dsig[] = WTF_DEFINE_SIGNATURE;
    cdefs[1] = wtf_def_new(1, 0, 40, "wtf.event#define", 16, dsig, sizeof dsig - 1, NULL);
    mdefs[1] = fz_wtf_def_new(1, 0, 40, "wtf.event#define", 16, dsig, sizeof dsig - 1, NULL);
    FZ_CHECK(cdefs[1] && mdefs[1], "the define event's own definition");
    for (size_t i = 0; i < k; i++) {
        char name[16];
        int nl = snprintf(name, sizeof name, "d%zu", i);
        atf_error err;
        atf_wtf_def *c = wtf_def_new((uint16_t)in[i].wire, in[i].cls, in[i].flags, name, (size_t)nl, in[i].sig,
                                     in[i].sig_len, &err);
        fz_wtf_def *m = fz_wtf_def_new(in[i].wire, in[i].cls, in[i].flags, name, (size_t)nl, in[i].sig, in[i].sig_len,
                                       NULL);
        FZ_CHECK((c != NULL) == (m != NULL), "definition %zu (\"%.*s\"): codec %s, grammar %s", i,
                 (int)in[i].sig_len, in[i].sig, c ? "accepts" : "refuses", m ? "accepts" : "refuses");
        if (!c) {
            fz_check_error(&err, err.code, "definition");
            continue;
        }
        FZ_CHECK(c->arg_count == m->nargs, "definition %zu: %zu arguments, the grammar %zu", i, c->arg_count, m->nargs);
        wtf_def_free(cdefs[in[i].wire]);
        fz_wtf_def_free(mdefs[in[i].wire]);
        cdefs[in[i].wire] = c;
        mdefs[in[i].wire] = m;
    }
    atf_wtf_strings st;
    FZ_CHECK(atf_wtf_strings_init(&st, table, tlen, NULL) == ATF_OK, "strings");
    fz_wtf_strtab *t = fz_wtf_strtab_new(table, tlen);
    size_t pos = 0;
    for (;;) {
        uint32_t csize = 0, msize = 0;
        atf_error err;
        atf_status cs = atf_wtf_decode_event((const atf_wtf_def *const *)cdefs, 65536, &st, buf, len, pos, &csize,
                                             &err);
        atf_status ms = fz_wtf_model_event(mdefs, t, buf, len, pos, &msize);
        if (pos == len) {
            FZ_CHECK(cs == ATF_E_TRUNCATED, "decode at the end of the buffer: %s", atf_status_name(cs));
            break;
        }
        FZ_CHECK(cs == ms, "event at %zu: decode returned %s, the rules say %s", pos, atf_status_name(cs),
                 atf_status_name(ms));
        if (cs != ATF_OK) {
            fz_check_error(&err, cs, "decode_event");
            FZ_CHECK(err.offset >= pos && err.offset <= len, "error at %llu, the event starts at %zu",
                     (unsigned long long)err.offset, pos);
            break;
        }
        FZ_CHECK(csize == msize && csize >= 8 && csize % 4 == 0 && csize <= len - pos,
                 "event at %zu: %u bytes, the rules say %u", pos, csize, msize);
        pos += csize;
    }
    uint32_t sz;
    FZ_CHECK(atf_wtf_decode_event((const atf_wtf_def *const *)cdefs, 65536, &st, buf, len, len + 1, &sz, NULL) ==
                 ATF_E_TRUNCATED,
             "decode past the end");
    atf_wtf_strings_free(&st);
    fz_wtf_strtab_free(t);
    for (size_t i = 0; i < 65536; i++)
        if (cdefs[i] || mdefs[i]) {
            wtf_def_free(cdefs[i]);
            fz_wtf_def_free(mdefs[i]);
        }
    free(cdefs);
    free(mdefs);
}

static void slot32(fz_buf *b, uint32_t v) { fz_buf_le32(b, v); }

static void in_a_file(const input_def *in, size_t k, const uint8_t *table, uint32_t tlen, const uint8_t *buf,
                      size_t len)
{
    fz_buf strings = { 0 }, events = { 0 }, file = { 0 };
    fz_buf_put(&strings, table, tlen);
    if (tlen && table[tlen - 1] != 0)
        fz_buf_put(&strings, "", 1);   /* terminate the input's last bytes: a string of their own */
    uint32_t ord = 0;
    for (size_t i = 0; i < strings.n; i++)
        ord += strings.p[i] == 0;
    for (size_t i = 0; i < k; i++) {
        char name[16];
        int nl = snprintf(name, sizeof name, "d%zu", i);
        fz_buf_put(&strings, name, (size_t)nl + 1);
        uint32_t name_ord = ord++, sig_ord = ATF_WTF_STRING_EMPTY;
        if (in[i].sig_len) {
            fz_buf_put(&strings, in[i].sig, in[i].sig_len);
            fz_buf_put(&strings, "", 1);
            sig_ord = ord++;
        }
        slot32(&events, ATF_WTF_WIRE_DEFINE);
        slot32(&events, 0);
        slot32(&events, in[i].wire);
        slot32(&events, in[i].cls);
        slot32(&events, in[i].flags);
        slot32(&events, name_ord);
        slot32(&events, sig_ord);
    }
    fz_buf_put(&events, buf, len);
    fz_wtf_put_file_header(&file, ATF_WTF_VERSION_JS);
    uint32_t ht = ATF_WTF_PART_FILE_HEADER, hl = (uint32_t)strlen(header_json);
    const uint8_t *hd = (const uint8_t *)header_json;
    fz_wtf_put_chunk(&file, 1, ATF_WTF_CHUNK_FILE_HEADER, ATF_WTF_NO_TIME, ATF_WTF_NO_TIME, 1, &ht, &hd, &hl);
    uint32_t types[2] = { ATF_WTF_PART_STRING_TABLE, ATF_WTF_PART_BINARY_EVENTS };
    const uint8_t *data[2] = { strings.p ? strings.p : (const uint8_t *)"", events.p };
    uint32_t lens[2] = { (uint32_t)strings.n, (uint32_t)events.n };
    fz_wtf_put_chunk(&file, 2, ATF_WTF_CHUNK_EVENT_DATA, ATF_WTF_NO_TIME, ATF_WTF_NO_TIME, 2, types, data, lens);
    fz_wtf_model m = fz_wtf_model_of(file.p, file.n);
    FZ_CHECK(m.open_status == ATF_OK && m.chunks == 2 && m.events >= k, "the synthesized file");
    fz_wtf_check_reader(file.p, file.n, &m);
    fz_wtf_check_validator(file.p, file.n, &m);
    fz_wtf_model_free(&m);
    free(strings.p);
    free(events.p);
    free(file.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_stream s = { data, size, 0 };
    input_def in[NDEF_MAX];
    size_t k = fz_next_u8(&s) % (NDEF_MAX + 1);
    for (size_t i = 0; i < k; i++) {
        in[i].wire = 2 + fz_next_u8(&s) % 62u;
        uint8_t c = fz_next_u8(&s);
        in[i].cls = c & 0x80 ? c & 3 : c & 1;
        in[i].flags = (uint32_t)(c & 0x7E);
        const uint8_t *sig = data + s.pos;
        size_t n = 0;
        while (s.pos < size && n < 200 && data[s.pos] != 0) {
            s.pos++;
            n++;
        }
        if (s.pos < size && data[s.pos] == 0)
            s.pos++;
        in[i].sig = (const char *)sig;
        in[i].sig_len = n;
    }
    size_t tlen = fz_next_u16(&s);
    if (tlen > fz_stream_left(&s))
        tlen = fz_stream_left(&s);
    const uint8_t *table = data + s.pos;
    s.pos += tlen;
    size_t len = fz_stream_left(&s);
    /* Exact-size copies, so that ASan sees any read past them. */
    uint8_t *t = malloc(tlen ? tlen : 1), *b = malloc(len ? len : 1);
    FZ_CHECK(t && b, "oom");
    memcpy(t, table, tlen);
    memcpy(b, data + s.pos, len);
    direct(in, k, t, (uint32_t)tlen, b, len);
    in_a_file(in, k, t, (uint32_t)tlen, b, len);
    free(t);
    free(b);
    return 0;
}
