/* The Clang XRay front end (libatf_xray.a, linked into a program built with
 * clang -fxray-instrument): XRay compiles a sled of NOPs at every function's
 * entry and exit, which cost next to nothing until its runtime patches them
 * into calls of a handler. This front end patches them only when the
 * program runs under `atf record` (ATF_RECORD_SESSION set) or with
 * ATF_RECORD_ROOT set; otherwise the program runs with its sleds unpatched:
 * tracing off costs the NOPs.
 *
 * XRay's runtime is linked into the executable and does not export its
 * functions, so this front end is linked too (a preloaded library cannot
 * reach __xray_set_handler). XRay ids are mapped to function addresses once,
 * at start (__xray_function_address takes a lock), and then to ATF function
 * ids exactly as the -finstrument-functions hooks do (front.h). */
#include "front.h"

#include <stdio.h>
#include <stdlib.h>

/* compiler-rt's XRay interface (xray/xray_interface.h, extern "C"). */
enum atf_xray_entry_type { XRAY_ENTRY = 0, XRAY_EXIT = 1, XRAY_TAIL = 2 };
extern int __xray_set_handler(void (*entry)(int32_t, int));
extern int __xray_patch(void);
extern uintptr_t __xray_function_address(int32_t id);
extern size_t __xray_max_function_id(void);

static uintptr_t *xray_addr;   /* XRay function id -> address */
static size_t xray_max;

static void atf_xray_handler(int32_t id, int type)
{
    if (FRONT_UNLIKELY((size_t)(uint32_t)id > xray_max))
        return;
    uint32_t kind = type == XRAY_ENTRY ? ATF_EVENT_CALL : ATF_EVENT_RETURN;
    if (FRONT_UNLIKELY(type > XRAY_TAIL))
        return;   /* argument logging, custom events: not ours */
    front_event(kind, xray_addr[(uint32_t)id]);
}

__attribute__((constructor(200))) static void atf_xray_start(void)
{
    const char *s = getenv("ATF_RECORD_SESSION"), *r = getenv("ATF_RECORD_ROOT");
    if (!(s && *s) && !(r && *r))
        return;   /* not recording: the sleds stay NOPs */
    size_t max = __xray_max_function_id();
    if (max == 0)
        return;   /* no instrumented function */
    uintptr_t *a = malloc((max + 1) * sizeof *a);
    if (!a) {
        fprintf(stderr, "atf record: XRay: out of memory for %zu function ids\n", max);
        return;
    }
    a[0] = 0;
    for (size_t i = 1; i <= max; i++)
        a[i] = __xray_function_address((int32_t)i);
    xray_addr = a;
    xray_max = max;
    if (!__xray_set_handler(atf_xray_handler) || __xray_patch() != 1 /* SUCCESS */)
        fprintf(stderr, "atf record: XRay: cannot patch the sleds; nothing is recorded\n");
}
