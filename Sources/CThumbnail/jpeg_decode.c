/*
 * JPEG: libjpeg-turbo decodes at the smallest DCT scale (k/8, k = 1...8) whose output covers
 * the thumbnail, a scanline at a time into the resizer. Grayscale stays one channel; CMYK and
 * YCCK are turned into RGB here (Adobe's inverted CMYK, as Photoshop and Pillow write it,
 * when the Adobe marker says so). libjpeg's state lives on the heap; its errors longjmp back
 * here, in C. Warnings are silenced, except running out of data: a truncated JPEG is an
 * error, not a thumbnail with a grey bottom.
 */
#include "thumbnail_shared.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_decompress_struct cinfo; /* first, so a cinfo pointer is a decoder pointer */
    struct jpeg_error_mgr err;
    jmp_buf jump;
    int status;             /* set before a jump that is not libjpeg's own error */
    cth_resizer resizer;
    JSAMPLE *scanline;
    uint8_t *converted;
} jpeg_decoder;

static jpeg_decoder *decoder_of(j_common_ptr cinfo) { return (jpeg_decoder *)cinfo; }

static void on_error_exit(j_common_ptr cinfo) { longjmp(decoder_of(cinfo)->jump, 1); }

static void on_emit_message(j_common_ptr cinfo, int level) {
    /* level < 0: a warning. The end of the data (a file cut short), or of the image's data
       before the image is complete (a marker where entropy-coded data should be), stops the
       decode: libjpeg would go on filling the rest with grey. The first is a file cut short;
       the second a file of full length whose data is damaged (one flipped bit desyncs the
       Huffman decoding, which then reaches the image's end marker early) or whose header
       declares more than its data holds: corrupt, not truncated, which it was called. Other
       warnings (extraneous bytes, a bad restart marker it resyncs from) are what many
       cameras' files carry, and are let pass. */
    if (level < 0 && (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->msg_code == JWRN_HIT_MARKER)) {
        decoder_of(cinfo)->status = cinfo->err->msg_code == JWRN_JPEG_EOF ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT;
        longjmp(decoder_of(cinfo)->jump, 1);
    }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* Adobe's CMYK is stored inverted (0 is full ink); plain CMYK is not. */
static void cmyk_to_rgb(const JSAMPLE *in, uint8_t *out, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = in[x * 4], m = in[x * 4 + 1], y = in[x * 4 + 2], k = in[x * 4 + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        out[x * 3] = (uint8_t)((c * k + 127) / 255);
        out[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
        out[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

static int fail_from_libjpeg(jpeg_decoder *d, cth_result *out) {
    if (d->status == CTH_ERR_TRUNCATED) return cth_fail(out, CTH_ERR_TRUNCATED, "the JPEG data ends before the image does");
    if (d->status == CTH_ERR_CORRUPT)
        return cth_fail(out, CTH_ERR_CORRUPT, "the JPEG's image data is damaged: it meets a marker before the image is complete");
    if (d->status != 0) return d->status;
    char text[JMSG_LENGTH_MAX];
    d->err.format_message((j_common_ptr)&d->cinfo, text);
    switch (d->err.msg_code) {
    case JERR_BAD_PRECISION:
        return cth_fail(out, CTH_ERR_UNSUPPORTED_KIND, "a %d-bit JPEG: this build of libjpeg-turbo decodes 8-bit JPEGs only",
                        d->cinfo.data_precision);
    case JERR_SOF_UNSUPPORTED:
        if (d->err.msg_parm.i[0] == 0xc8) break; /* JPG, reserved: not a frame of any kind */
        return cth_fail(out, CTH_ERR_UNSUPPORTED_KIND, "a %s JPEG (SOF%d): this build of libjpeg-turbo does not decode it",
                        d->err.msg_parm.i[0] == 0xc3 || d->err.msg_parm.i[0] == 0xcb ? "lossless" : "hierarchical",
                        d->err.msg_parm.i[0] - 0xc0);
    case JERR_UNKNOWN_MARKER:
        if (d->err.msg_parm.i[0] != 0xde) break;
        return cth_fail(out, CTH_ERR_UNSUPPORTED_KIND, "a hierarchical JPEG (DHP): this build of libjpeg-turbo does not decode it");
    case JERR_IMAGE_TOO_BIG:
        return cth_fail(out, CTH_ERR_TOO_LARGE, "a JPEG of %u x %u pixels: libjpeg decodes at most %ld pixels a side",
                        d->cinfo.image_width, d->cinfo.image_height, (long)JPEG_MAX_DIMENSION);
    case JERR_NO_BACKING_STORE:
    case JERR_OUT_OF_MEMORY:
        return cth_fail(out, CTH_ERR_TOO_LARGE, "the JPEG needs more than %ld bytes to decode", (long)CTH_JPEG_MEMORY);
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
    case JERR_NO_IMAGE:
        return cth_fail(out, CTH_ERR_TRUNCATED, "the JPEG data ends before the image does");
    default:
        break;
    }
    return cth_fail(out, CTH_ERR_CORRUPT, "%s", text);
}

int cth_decode_jpeg(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    jpeg_decoder *d = calloc(1, sizeof *d);
    if (!d) return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    d->cinfo.err = jpeg_std_error(&d->err);
    d->err.error_exit = on_error_exit;
    d->err.emit_message = on_emit_message;
    d->err.output_message = on_output_message;
    int status = CTH_OK;
    if (setjmp(d->jump)) {
        status = fail_from_libjpeg(d, out);
        goto done;
    }
    jpeg_create_decompress(&d->cinfo);
    d->cinfo.mem->max_memory_to_use = CTH_JPEG_MEMORY;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)length);
    jpeg_read_header(&d->cinfo, TRUE);
    out->source_width = d->cinfo.image_width;
    out->source_height = d->cinfo.image_height;

    uint32_t channels;
    int cmyk = 0;
    switch (d->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: d->cinfo.out_color_space = JCS_GRAYSCALE; channels = 1; break;
    case JCS_CMYK:
    case JCS_YCCK: d->cinfo.out_color_space = JCS_CMYK; channels = 3; cmyk = 1; break;
    default: d->cinfo.out_color_space = JCS_RGB; channels = 3; break;
    }

    uint32_t target_width, target_height;
    cth_target_size(d->cinfo.image_width, d->cinfo.image_height, request->box, request->orientation, &target_width,
                    &target_height);
    d->cinfo.scale_denom = 8;
    for (unsigned k = 1; k <= 8; k++) {
        d->cinfo.scale_num = k;
        jpeg_calc_output_dimensions(&d->cinfo);
        if (d->cinfo.output_width >= target_width && d->cinfo.output_height >= target_height) break;
    }

    if (jpeg_has_multiple_scans(&d->cinfo)) {
        /* Progressive: libjpeg keeps every coefficient of the full-size image, 2 bytes each. */
        double bytes = 0;
        for (int c = 0; c < d->cinfo.num_components; c++)
            bytes += (double)d->cinfo.comp_info[c].width_in_blocks * d->cinfo.comp_info[c].height_in_blocks * 64 * 2;
        if (bytes > (double)CTH_JPEG_MEMORY) {
            status = cth_fail(out, CTH_ERR_TOO_LARGE, "a progressive JPEG of %u x %u pixels needs %.0f MiB to decode, more than %ld MiB",
                              d->cinfo.image_width, d->cinfo.image_height, bytes / 1048576, (long)CTH_JPEG_MEMORY / 1048576);
            goto done;
        }
    }

    jpeg_start_decompress(&d->cinfo);
    uint32_t width = d->cinfo.output_width, height = d->cinfo.output_height;
    out->decoded_width = width;
    out->decoded_height = height;
    d->scanline = malloc((size_t)width * d->cinfo.output_components);
    d->converted = cmyk ? malloc((size_t)width * 3) : NULL;
    if (!d->scanline || (cmyk && !d->converted) ||
        cth_resizer_init(&d->resizer, width, height, target_width, target_height, channels) != CTH_OK) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory for a %u x %u decode", width, height);
        goto done;
    }
    int inverted = d->cinfo.saw_Adobe_marker;
    while (d->cinfo.output_scanline < height) {
        JSAMPROW rows[1] = {d->scanline};
        if (jpeg_read_scanlines(&d->cinfo, rows, 1) != 1) {
            status = cth_fail(out, CTH_ERR_TRUNCATED, "the JPEG data ends before the image does");
            goto done;
        }
        if (cmyk) {
            cmyk_to_rgb(d->scanline, d->converted, width, inverted);
            cth_resizer_push(&d->resizer, d->converted);
        } else {
            cth_resizer_push(&d->resizer, d->scanline);
        }
    }
    request->raster = cth_resizer_finish(&d->resizer);

done:
    jpeg_destroy_decompress(&d->cinfo);
    cth_resizer_free(&d->resizer);
    free(d->scanline);
    free(d->converted);
    free(d);
    return status;
}
