/* The recorder run the power-cut harness records (run_powerloss.py):
 * PHASES phases of two producer threads each (thread churn: every phase's
 * threads are new; one detaches, the other just exits), with the detail
 * lane on (every 8th event carries a payload), symbols added (manifest
 * rewrites) and a flush without sync in between. After some phases the
 * main thread calls atf_recorder_sync() and then tells the harness what is
 * durable now through atf_plog_note() (the interposer's, found with dlsym):
 *   "durable P:N,P:N,..."  events 0..N-1 of producer P (function id
 *                           P << 32 | seq) must be in every later state.
 * After stop() (opts.sync): "durable all".
 * Usage: pl_recorder ROOT [PHASES] [EVENTS]   (periodic: PL_PERIODIC_MS=N) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf/recorder.h>

static atf_recorder *rec;
static unsigned events_per = 300;

typedef struct prod {
    uint64_t id;
    pthread_t th;
    int detach;
} prod;

static void *producer(void *arg)
{
    prod *p = arg;
    uint8_t payload[48];
    for (uint64_t i = 0; i < events_per; i++) {
        uint64_t fid = p->id << 32 | i;
        uint32_t kind = (i & 1) ? ATF_EVENT_RETURN : ATF_EVENT_CALL;
        atf_status st;
        if (i % 8 == 0) {
            memset(payload, (int)(i & 0xFF), sizeof payload);
            memcpy(payload, &fid, 8);
            st = atf_recorder_event_detail(rec, kind, fid, 1000, payload, sizeof payload);
        } else {
            st = atf_recorder_event(rec, kind, fid);
        }
        if (st != ATF_OK) {
            fprintf(stderr, "pl_recorder: event %llu of producer %llu: status %d\n", (unsigned long long)i,
                    (unsigned long long)p->id, (int)st);
            exit(1);
        }
    }
    if (p->detach)
        atf_recorder_thread_detach(rec);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pl_recorder ROOT [PHASES] [EVENTS]\n");
        return 2;
    }
    unsigned phases = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
    if (argc > 3)
        events_per = (unsigned)atoi(argv[3]);
    void (*note)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "atf_plog_note");
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.root = argv[1];
    o.detail = 1;
    o.writer_threads = 2;
    o.flush_interval_ms = 5;
    const char *per = getenv("PL_PERIODIC_MS");
    if (per) {
        o.durability = ATF_RECORDER_DURABLE_PERIODIC;
        o.sync_interval_ms = (uint32_t)atoi(per);
    }
    atf_error err;
    if (atf_recorder_start(&rec, &o, &err) != ATF_OK) {
        fprintf(stderr, "pl_recorder: start: %s\n", err.message);
        return 2;
    }
    atf_recorder_detail_enable(rec, NULL);
    char text[4096];
    size_t at = 0;
    text[0] = 0;
    for (unsigned ph = 0; ph < phases; ph++) {
        prod p[2];
        for (int i = 0; i < 2; i++) {
            p[i].id = 2 * ph + (unsigned)i;
            p[i].detach = i == 0;
            pthread_create(&p[i].th, NULL, producer, &p[i]);
        }
        for (int i = 0; i < 2; i++)
            pthread_join(p[i].th, NULL);
        char name[32];
        snprintf(name, sizeof name, "phase_%u", ph);
        atf_manifest_symbol sym = { 0 };
        sym.function_id = (uint64_t)(2 * ph) << 32;
        sym.name = name;
        atf_recorder_add_symbol(rec, &sym);
        for (int i = 0; i < 2; i++)
            at += (size_t)snprintf(text + at, sizeof text - at, "%s%llu:%u", at ? "," : "",
                                   (unsigned long long)p[i].id, events_per);
        if (ph % 2 == 1) {
            /* Synced: what the phases so far recorded is durable now. */
            if (atf_recorder_sync(rec, &err) != ATF_OK) {
                fprintf(stderr, "pl_recorder: sync: %s\n", err.message);
                return 2;
            }
            if (note) {
                char line[4200];
                snprintf(line, sizeof line, "durable %s", text);
                note(line);
            }
        } else {
            atf_recorder_flush(rec, 0);   /* written, manifest rewritten, not synced */
        }
    }
    if (atf_recorder_stop(rec, &err) != ATF_OK) {
        fprintf(stderr, "pl_recorder: stop: %s\n", err.message);
        return 2;
    }
    if (note)
        note("durable all");
    atf_recorder_destroy(rec);
    return 0;
}
