/*
 * WebP: libwebp decodes straight to the thumbnail's size (its own scaled decoding, an area
 * rescaler) into RGBA. An animated WebP gives its first frame on the canvas (libwebpdemux's
 * animation decoder), reduced by the resizer. More than CTH_PIXEL_BUDGET canvas pixels is
 * refused for animations (their canvas is decoded whole).
 */
#include "thumbnail_shared.h"

#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

static int first_frame(const uint8_t *data, size_t length, cth_decode *request, uint32_t width, uint32_t height) {
    cth_result *out = request->result;
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET)
        return cth_fail(out, CTH_ERR_TOO_LARGE, "an animated WebP of %u x %u pixels is over the budget of %llu pixels",
                        width, height, CTH_PIXEL_BUDGET);
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return cth_fail(out, CTH_ERR_MEMORY, "libwebp version mismatch");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData input = { data, length };
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&input, &options);
    if (!decoder) return cth_fail(out, CTH_ERR_CORRUPT, "not a valid animated WebP");
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp)) {
        WebPAnimDecoderDelete(decoder);
        return cth_fail(out, CTH_ERR_TRUNCATED, "the WebP animation ends before its first frame");
    }
    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    out->decoded_width = width;
    out->decoded_height = height;
    cth_resizer resizer;
    int status = cth_resizer_init(&resizer, width, height, target_width, target_height, 4);
    if (status != CTH_OK) {
        WebPAnimDecoderDelete(decoder);
        return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    }
    for (uint32_t y = 0; y < height; y++) cth_resizer_push(&resizer, canvas + (size_t)y * width * 4);
    request->raster = cth_resizer_finish(&resizer);
    cth_resizer_free(&resizer);
    WebPAnimDecoderDelete(decoder);
    return CTH_OK;
}

int cth_decode_webp(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return cth_fail(out, CTH_ERR_MEMORY, "libwebp version mismatch");
    VP8StatusCode status = WebPGetFeatures(data, length, &config.input);
    if (status == VP8_STATUS_NOT_ENOUGH_DATA) return cth_fail(out, CTH_ERR_TRUNCATED, "the WebP data ends inside its header");
    if (status != VP8_STATUS_OK) return cth_fail(out, CTH_ERR_CORRUPT, "not a valid WebP header (libwebp status %d)", (int)status);
    uint32_t width = (uint32_t)config.input.width, height = (uint32_t)config.input.height;
    out->source_width = width;
    out->source_height = height;
    if (config.input.has_animation) return first_frame(data, length, request, width, height);
    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    config.options.use_scaling = target_width != width || target_height != height;
    config.options.scaled_width = (int)target_width;
    config.options.scaled_height = (int)target_height;
    int alpha = config.input.has_alpha;
    config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB;
    status = WebPDecode(data, length, &config);
    if (status != VP8_STATUS_OK) {
        WebPFreeDecBuffer(&config.output);
        return cth_fail(out, status == VP8_STATUS_NOT_ENOUGH_DATA ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT,
                        "the WebP image data cannot be decoded (libwebp status %d)", (int)status);
    }
    uint32_t channels = alpha ? 4 : 3;
    size_t row = (size_t)target_width * channels;
    uint8_t *pixels = malloc(row * target_height);
    if (!pixels) {
        WebPFreeDecBuffer(&config.output);
        return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    }
    const WebPRGBABuffer *rgba = &config.output.u.RGBA;
    for (uint32_t y = 0; y < target_height; y++) memcpy(pixels + y * row, rgba->rgba + (size_t)y * (size_t)rgba->stride, row);
    WebPFreeDecBuffer(&config.output);
    out->decoded_width = target_width;
    out->decoded_height = target_height;
    request->raster = (cth_raster){ pixels, target_width, target_height, channels };
    return CTH_OK;
}
