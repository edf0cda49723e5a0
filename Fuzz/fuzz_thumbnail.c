/*
 * libFuzzer target: the whole thumbnail path (sniff, DCT-scaled JPEG or PNG decode, area
 * reduction, orientation, JPEG/PNG encode) on bytes in memory. The input's last byte picks the
 * box (1 to 512) and the orientation, so every path is reached. The output is decoded back and
 * must have the size the result reports. See scripts/fuzz.
 */
#include "cthumbnail.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t knob = size ? data[size - 1] : 0;
    cth_options options = {1 + (uint32_t)knob * 2, 1 + knob % 8, 80};
    cth_result r;
    int status = cth_thumbnail(data, size, &options, &r);
    if (status < CTH_OK || status > CTH_ERR_ARGUMENT) __builtin_trap();
    if (memchr(r.message, 0, sizeof r.message) == NULL) __builtin_trap();
    if (status == CTH_OK) {
        if (r.width == 0 || r.height == 0 || r.width > options.box || r.height > options.box) __builtin_trap();
        if (!r.data || r.length == 0) __builtin_trap();
        uint8_t *pixels = NULL;
        uint32_t width = 0, height = 0;
        char message[160];
        if (cth_decode_rgba(r.data, r.length, &pixels, &width, &height, message, sizeof message) != CTH_OK) __builtin_trap();
        if (width != r.width || height != r.height) __builtin_trap();
        free(pixels);
    } else if (r.data) {
        __builtin_trap(); /* a failure holds no output */
    }
    cth_release(&r);
    return 0;
}
