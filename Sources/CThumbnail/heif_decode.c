/*
 * HEIC and AVIF: libheif decodes the primary image (HEVC through libde265, AV1 through its AV1
 * decoder) with its transformations applied (irot, imir, clap: the display orientation, so the
 * caller passes orientation 1), to interleaved RGB or RGBA, reduced by the resizer. These
 * codecs have no reduced-size decode: more than CTH_PIXEL_BUDGET pixels is refused before
 * decoding.
 */
#include "thumbnail_shared.h"

#include <stdlib.h>

#include <libheif/heif.h>

int cth_decode_heif(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    struct heif_context *context = heif_context_alloc();
    if (!context) return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int status = CTH_OK;
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(context, &handle);
    if (error.code != heif_error_Ok) {
        status = cth_fail(out, error.subcode == heif_suberror_End_of_data ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT,
                          "not a valid HEIF container: %s", error.message ? error.message : "unknown error");
        goto done;
    }
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    if (w <= 0 || h <= 0) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "the primary image is %d x %d", w, h);
        goto done;
    }
    uint32_t width = (uint32_t)w, height = (uint32_t)h;
    out->source_width = width;
    out->source_height = height;
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET) {
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a HEIF image of %u x %u pixels is over the budget of %llu pixels",
                          width, height, CTH_PIXEL_BUDGET);
        goto done;
    }
    int alpha = heif_image_handle_has_alpha_channel(handle);
    error = heif_decode_image(handle, &image, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                              NULL);
    if (error.code != heif_error_Ok) {
        status = cth_fail(out, error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype
                                   ? CTH_ERR_UNSUPPORTED_KIND
                                   : error.subcode == heif_suberror_End_of_data ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT,
                          "the HEIF image cannot be decoded: %s", error.message ? error.message : "unknown error");
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
    if (!plane || iw <= 0 || ih <= 0) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "the decoded HEIF image has no pixels");
        goto done;
    }
    width = (uint32_t)iw;
    height = (uint32_t)ih;
    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    out->decoded_width = width;
    out->decoded_height = height;
    cth_resizer resizer;
    if (cth_resizer_init(&resizer, width, height, target_width, target_height, alpha ? 4 : 3) != CTH_OK) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t y = 0; y < height; y++) cth_resizer_push(&resizer, plane + (size_t)y * (size_t)stride);
    request->raster = cth_resizer_finish(&resizer);
    cth_resizer_free(&resizer);

done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    return status;
}
