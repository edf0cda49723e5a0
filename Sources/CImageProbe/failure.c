/* Shared helper: an error's text, written into the result. */
#include "probe_shared.h"

#include <stdarg.h>
#include <stdio.h>

int cip_fail(cip_result *out, int status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, args);
    va_end(args);
    return status;
}
