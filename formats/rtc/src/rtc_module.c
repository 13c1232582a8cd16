/* RTC as a format module of the codec (format_module.h). */
#include <atf/rtc.h>

#include "format_module.h"

const atf_format_module atf_format_rtc = { "RTC", atf_rtc_sniff };
