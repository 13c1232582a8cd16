/* The fixture the export tests share (test_export.c here, and the tests of
 * the exports that formats' tools parts provide, formats/<f>/tests/, which
 * include this file by path): a temporary directory holding an `atf demo`
 * session pid_321 of two threads with ARM64 detail events on every third
 * call. Header-only (static). */
#ifndef ATF_EXPORT_TEST_UTIL_H
#define ATF_EXPORT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <atf/tools.h>

#include "codec_test_util.h"

typedef struct export_fixture {
    char dir[4096];
    char session[4200];
} export_fixture;

/* Events per thread of the fixture's session. */
#ifndef EXPORT_FIXTURE_EVENTS
#define EXPORT_FIXTURE_EVENTS 500
#endif

static int export_setup(void **state)
{
    export_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    cf_mkdtemp(f->dir, sizeof f->dir, "export");
    snprintf(f->session, sizeof f->session, "%s/pid_321", f->dir);
    atf_demo_options d = ATF_DEMO_OPTIONS_INIT;
    d.threads = 2;
    d.events = EXPORT_FIXTURE_EVENTS;
    d.detail_every = 3;
    atf_error err;
    assert_int_equal(atf_tool_demo(f->session, &d, &err), ATF_OK);
    *state = f;
    return 0;
}

static int export_teardown(void **state)
{
    export_fixture *f = *state;
    cf_rm_rf(f->dir);
    free(f);
    return 0;
}

#endif /* ATF_EXPORT_TEST_UTIL_H */
