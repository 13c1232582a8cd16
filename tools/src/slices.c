/* The slice builder: one thread's index events to properly nested
 * begin/end/instant callbacks, whatever the file holds (docs/export.md). */
#include <stdlib.h>

#include <atf/export.h>

typedef struct frame {
    uint64_t function_id;
    uint64_t begin_ts;
    uint64_t begin_seq;   /* ATF_SLICE_NO_SEQ: the begin was made up at the window's edge */
} frame;

struct atf_slice_builder {
    uint64_t from, to;
    atf_slice_fn fn;
    void *user;
    frame *stack;
    uint32_t depth, cap;
    int started;              /* an event of this thread was pushed */
    int in_window;            /* callbacks are being made */
    int done;                 /* an event after the window was seen */
    uint64_t last_ts;         /* the thread's latest timestamp so far */
    uint32_t last_call_depth; /* layout 1: the previous event's call_depth */
    atf_slice_counts counts;
};

atf_status atf_slice_builder_create(atf_slice_builder **out, uint64_t from_ns, uint64_t to_ns, atf_slice_fn fn,
                                    void *user)
{
    if (!out)
        return ATF_E_ARG;
    *out = NULL;
    if (!fn || from_ns > to_ns)
        return ATF_E_ARG;
    atf_slice_builder *b = calloc(1, sizeof *b);
    if (!b)
        return ATF_E_NOMEM;
    b->from = from_ns;
    b->to = to_ns;
    b->fn = fn;
    b->user = user;
    *out = b;
    return ATF_OK;
}

void atf_slice_builder_destroy(atf_slice_builder *b)
{
    if (!b)
        return;
    free(b->stack);
    free(b);
}

void atf_slice_builder_reset(atf_slice_builder *b)
{
    if (!b)
        return;
    b->depth = 0;
    b->started = b->in_window = b->done = 0;
    b->last_ts = 0;
    b->last_call_depth = 0;
}

const atf_slice_counts *atf_slice_builder_counts(const atf_slice_builder *b)
{
    return b ? &b->counts : NULL;
}

static int emit(atf_slice_builder *b, atf_slice_kind kind, uint32_t flags, uint32_t depth, uint64_t ts,
                uint64_t function_id, uint64_t seq, const atf_index_event *ev)
{
    atf_slice s = { kind, flags, depth, ts, function_id, seq, ev, ts, seq };
    if (kind == ATF_SLICE_END) {
        s.begin_timestamp_ns = b->stack[depth].begin_ts;
        s.begin_seq = b->stack[depth].begin_seq;
    }
    if (kind == ATF_SLICE_BEGIN)
        b->counts.begins++;
    else if (kind == ATF_SLICE_END)
        b->counts.ends++;
    else
        b->counts.instants++;
    return b->fn(b->user, &s);
}

/* Pops the top frame, with a callback when inside the window. */
static int pop(atf_slice_builder *b, uint32_t flags, uint64_t ts, uint64_t seq, const atf_index_event *ev)
{
    b->depth--;
    if (!b->in_window)
        return 0;
    return emit(b, ATF_SLICE_END, flags, b->depth, ts, b->stack[b->depth].function_id, seq, ev);
}

/* The window starts: what is open begins at its edge. */
static int enter_window(atf_slice_builder *b)
{
    b->in_window = 1;
    for (uint32_t i = 0; i < b->depth; i++) {
        b->counts.clipped++;
        b->stack[i].begin_ts = b->from;
        b->stack[i].begin_seq = ATF_SLICE_NO_SEQ;
        int r = emit(b, ATF_SLICE_BEGIN, ATF_SLICE_CLIPPED, i, b->from, b->stack[i].function_id, ATF_SLICE_NO_SEQ,
                     NULL);
        if (r)
            return r;
    }
    return 0;
}

static int close_all(atf_slice_builder *b, uint32_t flags, uint64_t ts)
{
    while (b->depth > 0) {
        if (flags & ATF_SLICE_CLIPPED)
            b->counts.clipped++;
        else
            b->counts.unclosed++;
        int r = pop(b, flags, ts, ATF_SLICE_NO_SEQ, NULL);
        if (r)
            return r;
    }
    return 0;
}

/* A return or exception of function_id: the frame it ends, or -1 when none
 * within ATF_SLICE_MAX_SEARCH frames from the top. */
static int64_t find_frame(const atf_slice_builder *b, uint64_t function_id)
{
    uint32_t lowest = b->depth > ATF_SLICE_MAX_SEARCH ? b->depth - ATF_SLICE_MAX_SEARCH : 0;
    for (uint32_t i = b->depth; i-- > lowest;)
        if (b->stack[i].function_id == function_id)
            return i;
    return -1;
}

int atf_slice_builder_push(atf_slice_builder *b, uint64_t seq, const atf_index_event *ev, int has_depth)
{
    if (b->done)
        return 1;
    b->counts.events++;
    uint64_t ts = ev->timestamp_ns;
    if (b->started && ts < b->last_ts) {
        b->counts.backwards++;
        ts = b->last_ts;   /* slices must nest: never go back in time */
    }
    if (has_depth) {
        uint32_t d = ev->call_depth, p = b->last_call_depth;
        if (b->started && (d > p + 1 || p > d + 1))
            b->counts.depth_skips++;
        b->last_call_depth = d;
    }
    b->started = 1;
    if (ts > b->to) {
        b->done = 1;
        int r = b->in_window ? close_all(b, ATF_SLICE_CLIPPED, b->to) : 0;
        return r ? r : 1;
    }
    b->last_ts = ts;
    int r;
    if (!b->in_window && ts >= b->from && (r = enter_window(b)) != 0)
        return r;
    switch (ev->event_kind) {
    case ATF_EVENT_CALL:
        if (b->depth >= ATF_SLICE_MAX_DEPTH) {
            b->counts.too_deep++;
            return 0;
        }
        if (b->depth == b->cap) {
            uint32_t ncap = b->cap ? b->cap * 2 : 64;
            frame *ns = realloc(b->stack, (size_t)ncap * sizeof *ns);
            if (!ns)
                return -1;
            b->stack = ns;
            b->cap = ncap;
        }
        b->stack[b->depth] = (frame){ ev->function_id, ts, seq };
        b->depth++;
        if (b->depth > b->counts.max_depth)
            b->counts.max_depth = b->depth;
        return b->in_window ? emit(b, ATF_SLICE_BEGIN, 0, b->depth - 1, ts, ev->function_id, seq, ev) : 0;
    case ATF_EVENT_RETURN:
    case ATF_EVENT_EXCEPTION: {
        int exc = ev->event_kind == ATF_EVENT_EXCEPTION;
        if (exc && b->in_window &&
            (r = emit(b, ATF_SLICE_INSTANT, ATF_SLICE_EXCEPTION, b->depth, ts, ev->function_id, seq, ev)) != 0)
            return r;
        int64_t at = find_frame(b, ev->function_id);
        if (at < 0) {
            if (!exc)
                b->counts.unmatched_returns++;
            return 0;
        }
        while (b->depth > (uint32_t)at + 1) {
            b->counts.unwound++;
            if ((r = pop(b, ATF_SLICE_UNWOUND | (exc ? ATF_SLICE_EXCEPTION : 0), ts, ATF_SLICE_NO_SEQ, NULL)) != 0)
                return r;
        }
        return pop(b, exc ? ATF_SLICE_EXCEPTION : 0, ts, seq, ev);
    }
    default:
        b->counts.unknown_kinds++;
        return 0;
    }
}

int atf_slice_builder_finish(atf_slice_builder *b)
{
    int r = 0;
    if (!b->done && b->in_window)
        r = close_all(b, ATF_SLICE_UNCLOSED, b->last_ts);
    b->depth = 0;
    b->done = 1;
    return r;
}
