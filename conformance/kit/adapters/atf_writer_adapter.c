/* atf_writer_adapter: the writer-kit adapter of this project's own writer.
 *
 *     atf_writer_adapter SCENARIO_FILE OUTPUT_DIR
 *
 * Reads the scenario with the kit's streaming reader (atf/conform.h) and
 * writes the session with atf_session_writer (atf/session.h): one thread
 * writer per scenario thread, every `e` record through
 * atf_thread_writer_append(), which links the index and detail events.
 * Exit 0 when the session is finalized; 1 (with a message on stderr) when
 * the scenario cannot be read or a write fails; 2 on a usage error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/conform.h>
#include <atf/session.h>

static int fail(const char *what, const atf_error *err, atf_status st)
{
    char line[600] = "";
    if (err)
        atf_error_format(line, sizeof line, err);
    fprintf(stderr, "atf_writer_adapter: %s: %s\n", what, line[0] ? line : atf_strerror(st));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: atf_writer_adapter SCENARIO_FILE OUTPUT_DIR\n");
        return 2;
    }
    atf_error err;
    atf_scenario_reader *sr = NULL;
    atf_status st = atf_scenario_open(&sr, argv[1], &err);
    if (st)
        return fail("cannot read the scenario", &err, st);
    const atf_scenario_info *info = atf_scenario_reader_info(sr);

    atf_writer_options o = ATF_WRITER_OPTIONS_INIT;
    o.layout = (atf_layout)info->layout;
    o.arch = (uint8_t)info->arch;
    o.os = (uint8_t)info->os;
    o.clock_type = (uint8_t)info->clock_type;
    o.checksum = 1;
    /* Many threads may be open at once: keep each writer's buffer small. */
    o.buffer_size = info->thread_count > 16 ? 16u * 1024u : 256u * 1024u;

    int rc = 1;
    atf_session_writer *sw = NULL;
    atf_thread_writer **tw = calloc(info->thread_count, sizeof *tw);
    if (!tw) {
        fprintf(stderr, "atf_writer_adapter: out of memory\n");
        goto out;
    }
    if ((st = atf_session_writer_create(&sw, argv[2], &o, &err))) {
        fail("cannot create the session", &err, st);
        goto out;
    }
    for (size_t i = 0; i < info->symbol_count; i++) {
        const atf_scenario_symbol *s = &info->symbols[i];
        atf_manifest_symbol ms = { s->function_id, s->function_id >> 32, s->function_id & 0xffffffffu, s->name };
        if ((st = atf_session_writer_add_symbol(sw, &ms))) {
            fail("cannot add a symbol", NULL, st);
            goto out;
        }
    }
    for (size_t i = 0; i < info->thread_count; i++) {
        const atf_scenario_thread *t = &info->threads[i];
        if ((st = atf_session_writer_add_thread(sw, t->id, t->os_thread_id, t->detail, &tw[i], &err))) {
            fail("cannot add a thread", &err, st);
            goto out;
        }
    }
    atf_scenario_event ev;
    int more;
    uint64_t n = 0;
    while ((more = atf_scenario_next(sr, &ev, &err)) == 1) {
        atf_index_event ie;
        memset(&ie, 0, sizeof ie);
        ie.timestamp_ns = ev.timestamp_ns;
        ie.function_id = ev.function_id;
        ie.event_kind = ev.event_kind;
        ie.thread_id = ev.thread_id;
        ie.call_depth = ev.call_depth;
        ie.detail_seq = ATF_NO_DETAIL;
        atf_detail_event de;
        memset(&de, 0, sizeof de);
        if (ev.has_detail) {
            de.event_type = ev.event_type;
            de.flags = ev.flags;
            de.thread_id = ev.thread_id;
            de.timestamp = ev.timestamp;
            de.payload = ev.payload;
            de.payload_size = ev.payload_size;
        }
        if ((st = atf_thread_writer_append(tw[ev.thread_index], &ie, ev.has_detail ? &de : NULL, NULL))) {
            fprintf(stderr, "atf_writer_adapter: event %" PRIu64 " (thread %" PRIu64 "): cannot append: %s\n", n,
                    ev.thread, atf_strerror(st));
            goto out;
        }
        n++;
    }
    if (more < 0) {
        fail("cannot read the scenario", &err, ATF_E_FIELD);
        goto out;
    }
    if ((st = atf_session_writer_finalize(sw, 0, &err))) {
        fail("cannot finalize the session", &err, st);
        goto out;
    }
    rc = 0;
out:
    if (sw) {
        st = atf_session_writer_close(sw);
        if (st && rc == 0) {
            fprintf(stderr, "atf_writer_adapter: cannot close the session: %s\n", atf_strerror(st));
            rc = 1;
        }
    }
    free(tw);
    atf_scenario_close(sr);
    return rc;
}
