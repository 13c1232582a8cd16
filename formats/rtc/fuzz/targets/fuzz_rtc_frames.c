/* Target rtc_frames: frame headers, lengths, `more` chains, padding and the
 * Crc of one Unit (SPEC-RTC 1, 3, 8).
 *
 * Input: the frames of Unit 0 of a synthesized file (U = u = 2048) whose
 * Meta defines stream 9 (raw), 10 (fixed 4, uint32), 11 (utf-8) and 12
 * (fixed 0). A parameter from the end closes the Unit: a final crc-32 or
 * rtc-ref Crc right after the input, none (a file cut at the end), or
 * padding to the Unit's end and the Crc in its last 5 bytes. Properties:
 *  - the reader's invariants (fuzz_rtc.h);
 *  - the harness's own walk of the frames (its LEB128, the stream table
 *    above, SPEC-RTC 8.2) predicts, whenever it only meets user streams,
 *    nop and padding: exactly the records the reader returns (stream, first
 *    frame, every frame, payload), and the state: damaged after a frame
 *    that cannot be read (RTC-FRM-001/002/003/004; a uint32 frame with
 *    more set that runs into the Crc position is cut there, R-E8, and left
 *    continued) or a uint32 record that
 *    is not 4 bytes (RTC-FMT-001), with every record completed before it;
 *    crash-truncated when the file is cut (no final Crc, a frame cut short)
 *    or ends at the Unit's end with a record still continued; complete
 *    otherwise (RTC-FRM-006 for a record left continued). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_rtc.h"

#define U 2048u
static const char meta[] = "[{\"id\":9,\"format\":\"raw\"},{\"id\":10,\"length\":4,\"format\":\"uint32\"},"
                           "{\"id\":11,\"format\":\"utf-8\"},{\"id\":12,\"length\":0},13]";

typedef struct mrec {
    uint64_t stream, frames[64];
    size_t nframes, size;
} mrec;

typedef struct model {
    int determined, damaged, cut;
    mrec recs[1100];
    size_t nrec;
    mrec open[4];
} model;

/* Walks [s, e) (e: where the Crc is, or the end of a cut file). */
static void walk(model *m, const uint8_t *d, size_t s, size_t e, int cut_file, int crc_known)
{
    size_t pos = s;
    while (pos < e) {
        uint64_t h, len;
        size_t hu, lu = 0;
        int st = fz_rtc_uleb(d + pos, e - pos, &h, &hu);
        if (st == 0 && cut_file) {
            m->cut = 1;
            return;
        }
        if (st == 0 && !crc_known) {
            m->determined = 0;   /* the header runs into the final Crc: not modelled */
            return;
        }
        if (st != 1) {          /* over 10 bytes, or a header running into the Crc */
            m->damaged = 1;
            return;
        }
        uint64_t sid = h >> 1;
        int more = h & 1;
        if (sid >= 2 && sid <= 8) {
            m->determined = 0;   /* built-in frames in the body: not modelled */
            return;
        }
        if (sid > 12) {
            m->damaged = 1;      /* RTC-FRM-004 */
            return;
        }
        if ((sid <= 1) && more) {
            m->determined = 0;
            return;
        }
        int variable = sid == 1 || sid == 9 || sid == 11;
        if (variable) {
            st = fz_rtc_uleb(d + pos + hu, e - pos - hu, &len, &lu);
            if (st == 0 && cut_file) {
                m->cut = 1;
                return;
            }
            if (st == 0 && !crc_known) {
                m->determined = 0;
                return;
            }
            if (st != 1 || len > 1024) {
                m->damaged = 1;
                return;
            }
        } else {
            len = sid == 10 ? 4 : 0;
        }
        int split = 0;
        if (len > e - pos - hu - lu && crc_known && !variable && more) {
            /* SPEC-RTC R-E8: a fixed-length frame with more set ends at the
             * Crc position; its rest would be in the next Unit (RTC-FRM-007) */
            len = e - pos - hu;
            split = 1;
        }
        if (len > e - pos - hu - lu) {
            if (cut_file)
                m->cut = 1;
            else if (crc_known)
                m->damaged = 1;  /* RTC-FRM-003: into the Crc */
            else
                m->determined = 0;
            return;
        }
        if (sid >= 9) {
            mrec *o = &m->open[sid - 9];
            o->stream = sid;
            if (o->nframes == 64) {
                m->determined = 0;
                return;
            }
            o->frames[o->nframes++] = pos;
            o->size += (size_t)len;
            if (split) {
                FZ_CHECK(pos + hu + len == e, "a split piece ends at the Crc position");
                return;   /* still continued at the end of the full Unit */
            }
            if (!more) {
                if (sid == 10 && o->size != 4)
                    m->damaged = 1;   /* RTC-FMT-001: the record is kept */
                m->recs[m->nrec++] = *o;
                memset(o, 0, sizeof *o);
            }
        }
        pos += hu + lu + (size_t)len;
    }
}

static int cmp_off(const void *a, const void *b)
{
    uint64_t x = ((const mrec *)a)->frames[0], y = ((const mrec *)b)->frames[0];
    return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params pr = fz_params_overlay(data, size);
    int mode = fz_u8(&pr) % 4;   /* 0 crc-32, 1 rtc-ref, 2 cut, 3 full Unit */
    fz_buf b = { 0 };
    static const uint64_t ids[] = { 9, 10, 11, 12 };
    fz_rtc_head(&b, U, U, meta, sizeof meta - 1, ids, 4);
    size_t s = b.n, room = U - 5 - s;
    size_t body = size < room ? size : room;
    fz_buf_put(&b, data, body);
    size_t e = b.n;
    /* An input that fills the room in mode 0/1 puts the final Crc in the
     * Unit's last 5 bytes: the file is one full Unit, read as mode 3 is
     * (SPEC-RTC 8.2 item 3: a record still continued there means a cut). */
    int full = mode == 3 || (mode != 2 && body == room);
    if (mode == 3) {
        fz_rtc_pad_to(&b, U - 5);
        e = U - 5;
    }
    if (mode != 2)
        fz_rtc_put_crc(&b, 0, mode == 1);
    size_t n;
    uint8_t *f = fz_buf_exact(&b, &n);

    fz_rtc_read rd;
    fz_rtc_check_reader(f, n, &rd);
    model *m = calloc(1, sizeof *m);
    m->determined = 1;
    /* With a final Crc right after the input, the input must be whole frames
     * for the model to know where the Crc is. */
    walk(m, f, s, e, mode == 2, full);
    if (m->determined) {
        int open = 0;
        for (int i = 0; i < 4; i++)
            open |= m->open[i].nframes > 0;
        atf_rtc_state want = m->damaged ? ATF_RTC_DAMAGED
                             : (mode == 2 || m->cut || (full && open)) ? ATF_RTC_CRASH_TRUNCATED
                                                                             : ATF_RTC_COMPLETE;
        FZ_CHECK(rd.sum.state == want, "mode %d: state %d, the walk says %d (damaged %d, cut %d, open %d)", mode,
                 rd.sum.state, want, m->damaged, m->cut, open);
        if (want == ATF_RTC_COMPLETE && open)
            FZ_CHECK(fz_rtc_count(&rd, "RTC-FRM-006") > 0, "a record left continued, no RTC-FRM-006");
        qsort(m->recs, m->nrec, sizeof m->recs[0], cmp_off);
        FZ_CHECK(rd.nrec == m->nrec, "mode %d: %zu records, the walk says %zu", mode, rd.nrec, m->nrec);
        /* the reader's records by first frame */
        for (size_t i = 0; i < m->nrec; i++) {
            const fz_rtc_rec *r = NULL;
            for (size_t j = 0; j < rd.nrec && !r; j++)
                if (rd.recs[j].offset == m->recs[i].frames[0])
                    r = &rd.recs[j];
            FZ_CHECK(r && r->stream == m->recs[i].stream && r->nframes == m->recs[i].nframes &&
                         r->size == m->recs[i].size &&
                         !memcmp(r->frames, m->recs[i].frames, r->nframes * sizeof(uint64_t)),
                     "the record of stream %llu at %llu (%zu frames, %zu bytes) is not the reader's",
                     (unsigned long long)m->recs[i].stream, (unsigned long long)m->recs[i].frames[0],
                     m->recs[i].nframes, m->recs[i].size);
        }
    }
    free(m);
    fz_rtc_read_free(&rd);
    free(f);
    return 0;
}
