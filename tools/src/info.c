/* `atf info`: headers, footers and what recovery found. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atf/tools.h>

#include "internal.h"
#include "tool_format.h"
#include "tools_internal.h"


static void info_index(FILE *out, const atf_index_reader *r, const char *indent)
{
    char what[256];
    const atf_index_header *h = atf_index_reader_header(r);
    const atf_index_footer *f = atf_index_reader_footer(r);
    const atf_index_info *in = atf_index_reader_info(r);
    fprintf(out, "%sindex %s\n", indent, atf_index_reader_path(r));
    fprintf(out, "%s  layout %u, arch %s, os %s, clock %s, thread_id %" PRIu32 ", flags 0x%" PRIx32 "%s\n",
            indent, (unsigned)h->version, atf_arch_name(h->arch), atf_os_name(h->os),
            atf_clock_name(h->clock_type), h->thread_id, h->flags,
            h->flags & ATF_INDEX_FLAG_HAS_DETAIL_FILE ? " (has_detail_file)" : "");
    fprintf(out, "%s  header: event_count %" PRIu64 ", events_offset %" PRIu64 ", footer_offset %" PRIu64
                 ", time %" PRIu64 "..%" PRIu64 "\n",
            indent, h->event_count, h->events_offset, h->footer_offset, h->time_start_ns, h->time_end_ns);
    if (f)
        fprintf(out, "%s  footer @%" PRIu64 ": event_count %" PRIu64 ", bytes_written %" PRIu64
                     ", time %" PRIu64 "..%" PRIu64 ", checksum 0x%08" PRIx32 " (%s)\n",
                indent, in->footer_offset, f->event_count, f->bytes_written, f->time_start_ns,
                f->time_end_ns, f->checksum, atf_checksum_state_name(in->checksum));
    else
        fprintf(out, "%s  %s\n", indent, (atf_index_info_describe(what, sizeof what, in), what));
    fprintf(out, "%s  events: %" PRIu64 "\n", indent, in->event_count);
}

static void info_detail(FILE *out, const atf_detail_reader *r, const char *indent)
{
    char what[256];
    const atf_detail_header *h = atf_detail_reader_header(r);
    const atf_detail_footer *f = atf_detail_reader_footer(r);
    const atf_detail_info *in = atf_detail_reader_info(r);
    fprintf(out, "%sdetail %s\n", indent, atf_detail_reader_path(r));
    fprintf(out, "%s  layout %u, arch %s, os %s, thread_id %" PRIu32 "\n", indent, (unsigned)h->version,
            atf_arch_name(h->arch), atf_os_name(h->os), h->thread_id);
    fprintf(out, "%s  header: event_count %" PRIu64 ", bytes_length %" PRIu64 ", index_seq %" PRIu64 "..%" PRIu64
                 "\n",
            indent, h->event_count, h->bytes_length, h->index_seq_start, h->index_seq_end);
    if (f)
        fprintf(out, "%s  footer @%" PRIu64 ": event_count %" PRIu64 ", bytes_length %" PRIu64
                     ", time %" PRIu64 "..%" PRIu64 ", checksum 0x%08" PRIx32 " (%s)\n",
                indent, in->footer_offset, f->event_count, f->bytes_length, f->time_start_ns, f->time_end_ns,
                f->checksum, atf_checksum_state_name(in->checksum));
    else
        fprintf(out, "%s  %s\n", indent, (atf_detail_info_describe(what, sizeof what, in), what));
    fprintf(out, "%s  events: %" PRIu64 "\n", indent, in->event_count);
}

static atf_status info_source(FILE *out, const tool_source *src_, const atf_tool_options *opts, atf_error *err)
{
    const tool_source src = *src_;
    (void)opts;
    (void)err;
    if (src.kind == ATF_PATH_SESSION) {
        const atf_manifest *m = src.manifest;
        fprintf(out, "session %s: %zu thread(s)\n", src.path, src.thread_count);
        if (m)
            fprintf(out, "manifest: format_version \"%s\", time %" PRIu64 "..%" PRIu64
                         ", %zu module(s), %zu symbol(s), %zu timing anchor(s), events_dropped %" PRIu64 "\n",
                    m->format_version, m->time_start_ns, m->time_end_ns, m->module_count, m->symbol_count,
                    m->anchor_count, m->events_dropped);
        for (size_t i = 0; i < atf_session_warning_count(src.session); i++)
            fprintf(out, "warning: %s\n", atf_session_warning(src.session, i));
    }
    for (size_t i = 0; i < src.thread_count; i++) {
        const tool_thread *t = &src.threads[i];
        const char *indent = src.thread_count > 1 || src.kind == ATF_PATH_SESSION ? "  " : "";
        if (src.kind == ATF_PATH_SESSION || src.kind == ATF_PATH_THREAD)
            fprintf(out, "%sthread %" PRIu64 "\n", indent, t->id);
        if (t->status) {
            char line[1024];
            atf_error_format(line, sizeof line, t->error);
            fprintf(out, "%s  not read: %s\n", indent, line);
        }
        if (t->index)
            info_index(out, t->index, indent);
        if (t->detail)
            info_detail(out, t->detail, indent);
    }
    return ATF_OK;
}

atf_status atf_tool_info(FILE *out, const char *path, const atf_tool_options *opts, atf_error *err)
{
    const atf_tool_format *tf = tool_other_format(path);
    if (tf)
        return tf->info(out, path, opts, err);
    return tool_run(out, path, opts, info_source, err);
}

