/* Writes a one-thread session with the installed library, reads it back and
 * checks every event: proof that headers, library and dependencies install. */
#include <stdio.h>
#include <string.h>

#include <atf/session.h>
#include <atf/version.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer DIR\n");
        return 2;
    }
    atf_session_writer *sw;
    atf_thread_writer *tw;
    atf_error err;
    if (atf_session_writer_create(&sw, argv[1], NULL, &err) ||
        atf_session_writer_add_thread(sw, 0, 42, 0, &tw, &err)) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    for (uint64_t i = 0; i < 1000; i++) {
        atf_index_event ev = { 0 };
        ev.timestamp_ns = 1000 + i;
        ev.function_id = i % 7;
        ev.event_kind = ATF_EVENT_CALL + (uint32_t)(i % 2);
        if (atf_thread_writer_append(tw, &ev, NULL, NULL) != ATF_OK)
            return 1;
    }
    if (atf_session_writer_close(sw) != ATF_OK)
        return 1;
    atf_session *s;
    if (atf_session_open(&s, argv[1], NULL, &err) != ATF_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    const atf_session_thread *t = atf_session_thread_at(s, 0);
    int bad = atf_index_reader_count(t->index) != 1000;
    for (uint64_t i = 0; !bad && i < 1000; i++) {
        atf_index_event ev;
        bad = atf_index_reader_get(t->index, i, &ev) != ATF_OK || ev.timestamp_ns != 1000 + i ||
              ev.function_id != i % 7 || ev.detail_seq != ATF_NO_DETAIL;
    }
    atf_session_close(s);
    printf("consumer: libatf %s, 1000 events %s\n", atf_version_string(), bad ? "WRONG" : "read back");
    return bad;
}
