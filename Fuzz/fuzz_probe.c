/* libFuzzer target: the whole C probe on bytes in memory (JPEG, PNG, EXIF, eXIf, and the formats fuzz_format.c targets). See scripts/fuzz. */
#include "cimageprobe.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cip_result r;
    int status = cip_probe_memory(data, size, &r);
    if (status < CIP_OK || status > CIP_ERR_DIMENSIONS) __builtin_trap();
    if (memchr(r.message, 0, sizeof r.message) == NULL) __builtin_trap();
    for (int i = 0; i < CIP_DATES; i++)
        if (memchr(r.dates[i].date, 0, sizeof r.dates[i].date) == NULL || memchr(r.dates[i].offset, 0, sizeof r.dates[i].offset) == NULL) __builtin_trap();
    if (r.byte_size != (int64_t)size || r.bytes_read > (int64_t)size) __builtin_trap();
    if (status == CIP_OK) {
        if (r.width == 0 || r.height == 0 || r.width > CIP_MAX_SIDE || r.height > CIP_MAX_SIDE) __builtin_trap();
        if (r.orientation < 1 || r.orientation > 8) __builtin_trap();
        if (r.format < CIP_FORMAT_JPEG || r.format > CIP_FORMAT_AVIF) __builtin_trap();
    }
    return 0;
}
