/* Records a two-thread session with the installed recorder, then checks it
 * with the installed clause validator: proof that libatf_recorder,
 * libatf_validator, their headers and dependencies install and link. */
#include <pthread.h>
#include <stdio.h>

#include <atf/recorder.h>
#include <atf/validator.h>

#define EVENTS 100000u

static void *work(void *arg)
{
    atf_recorder *r = arg;
    for (uint64_t i = 0; i < EVENTS; i++)
        if ((i % 2 ? atf_recorder_return(r, i / 2) : atf_recorder_call(r, i / 2)) != ATF_OK)
            return (void *)1;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: recorder_consumer DIR\n");
        return 2;
    }
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    o.root = argv[1];
    atf_recorder *r;
    atf_error err;
    if (atf_recorder_start(&r, &o, &err) != ATF_OK) {
        fprintf(stderr, "recorder_consumer: start: %s\n", err.message);
        return 1;
    }
    pthread_t th[2];
    void *res[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, work, r);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], &res[i]);
    atf_status st = atf_recorder_stop(r, &err);
    atf_recorder_stats s;
    atf_recorder_get_stats(r, &s);
    const char *dir = atf_recorder_session_dir(r);
    atf_validation *v = NULL;
    int conformant = st == ATF_OK && atf_validate_path(&v, dir, NULL, &err) == ATF_OK && atf_validation_conformant(v);
    int ok = conformant && !res[0] && !res[1] && s.events_recorded == 2u * EVENTS && s.events_dropped == 0;
    printf("recorder_consumer: %s: %llu events recorded, %llu lost, %s\n", dir, (unsigned long long)s.events_recorded,
           (unsigned long long)s.events_dropped, conformant ? "conformant" : "NOT conformant");
    atf_validation_free(v);
    atf_recorder_destroy(r);
    return ok ? 0 : 1;
}
