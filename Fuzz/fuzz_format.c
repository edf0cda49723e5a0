/*
 * libFuzzer targets for the formats of issue #15, one per format (scripts/fuzz builds this
 * file with -DFUZZ_FORMAT=webp, gif, heic or avif): the probe and the thumbnail path on the
 * same bytes. An input that does not start like the format is given the format's magic bytes
 * first, so mutations stay inside that format's reader. Checks what the probe and thumbnail
 * targets check.
 */
#include "cimageprobe.h"
#include "cthumbnail.h"

#include <stdlib.h>
#include <string.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static const uint8_t *magic(size_t *length, int *format) {
    static const uint8_t webp[] = { 'R', 'I', 'F', 'F', 0x40, 0, 0, 0, 'W', 'E', 'B', 'P' };
    static const uint8_t gif[] = { 'G', 'I', 'F', '8', '9', 'a' };
    static const uint8_t heic[] = { 0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'h', 'e', 'i', 'c', 0, 0, 0, 0, 'm', 'i', 'f', '1', 'h', 'e', 'i', 'c' };
    static const uint8_t avif[] = { 0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'a', 'v', 'i', 'f', 0, 0, 0, 0, 'm', 'i', 'f', '1', 'a', 'v', 'i', 'f' };
    const char *name = STRINGIFY(FUZZ_FORMAT);
    if (strcmp(name, "webp") == 0) { *length = sizeof webp; *format = CIP_FORMAT_WEBP; return webp; }
    if (strcmp(name, "gif") == 0) { *length = sizeof gif; *format = CIP_FORMAT_GIF; return gif; }
    if (strcmp(name, "heic") == 0) { *length = sizeof heic; *format = CIP_FORMAT_HEIC; return heic; }
    *length = sizeof avif;
    *format = CIP_FORMAT_AVIF;
    return avif;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t prefix_length;
    int format;
    const uint8_t *prefix = magic(&prefix_length, &format);
    size_t compare = format == CIP_FORMAT_WEBP ? 4 : format == CIP_FORMAT_GIF ? 3 : 8; /* RIFF / GIF / size+ftyp */
    uint8_t *input = NULL;
    if (size < prefix_length || memcmp(data + (format >= CIP_FORMAT_HEIC ? 4 : 0), prefix + (format >= CIP_FORMAT_HEIC ? 4 : 0),
                                       compare - (format >= CIP_FORMAT_HEIC ? 4 : 0)) != 0) {
        input = malloc(prefix_length + size);
        if (!input) return 0;
        memcpy(input, prefix, prefix_length);
        if (size) memcpy(input + prefix_length, data, size);
        data = input;
        size += prefix_length;
    }

    cip_result r;
    int status = cip_probe_memory(data, size, &r);
    if (status < CIP_OK || status > CIP_ERR_DIMENSIONS) __builtin_trap();
    if (memchr(r.message, 0, sizeof r.message) == NULL) __builtin_trap();
    for (int i = 0; i < CIP_DATES; i++)
        if (memchr(r.dates[i].date, 0, sizeof r.dates[i].date) == NULL || memchr(r.dates[i].offset, 0, sizeof r.dates[i].offset) == NULL) __builtin_trap();
    if (r.byte_size != (int64_t)size) __builtin_trap();
    if (status == CIP_OK) {
        if (r.width == 0 || r.height == 0 || r.width > CIP_MAX_SIDE || r.height > CIP_MAX_SIDE) __builtin_trap();
        if (r.orientation < 1 || r.orientation > 8) __builtin_trap();
    }

    uint8_t knob = size ? data[size - 1] : 0;
    cth_options options = { 1 + (uint32_t)knob % 64, 1 + knob % 8, 80 };
    cth_result t;
    int made = cth_thumbnail(data, size, &options, &t);
    if (made < CTH_OK || made > CTH_ERR_ARGUMENT) __builtin_trap();
    if (memchr(t.message, 0, sizeof t.message) == NULL) __builtin_trap();
    if (made == CTH_OK && (t.width == 0 || t.height == 0 || t.width > options.box || t.height > options.box || !t.data)) __builtin_trap();
    if (made != CTH_OK && t.data) __builtin_trap();
    cth_release(&t);
    free(input);
    return 0;
}
