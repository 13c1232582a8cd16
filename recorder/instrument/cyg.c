/* The -finstrument-functions front end: GCC and Clang call these two hooks
 * at every entry and exit of an instrumented function. Built twice: as
 * libatf_cyg.so to LD_PRELOAD (`atf record`), and as libatf_cyg.a to link
 * into a program (static binaries, or to trace without a launcher). */
#include "front.h"

#define CYG_API __attribute__((visibility("default"), no_instrument_function))

CYG_API void __cyg_profile_func_enter(void *fn, void *call_site);
CYG_API void __cyg_profile_func_exit(void *fn, void *call_site);

void __cyg_profile_func_enter(void *fn, void *call_site)
{
    (void)call_site;
    front_event(ATF_EVENT_CALL, (uintptr_t)fn);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    (void)call_site;
    front_event(ATF_EVENT_RETURN, (uintptr_t)fn);
}
