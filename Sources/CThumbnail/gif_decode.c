/*
 * GIF: the first frame only, with giflib's record-by-record API (never DGifSlurp, which would
 * hold every frame of an animation): extension blocks until the first image, its graphics
 * control block's transparent index, then its rows (de-interlaced) drawn on the logical
 * screen, transparent where no pixel was drawn, and reduced by the resizer. More than
 * CTH_PIXEL_BUDGET screen pixels is refused.
 */
#include "thumbnail_shared.h"

#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

/* Records and extension blocks read before the first frame, at most: as the probe reads. */
#define CTH_GIF_RECORDS 4096

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} gif_input;

static int read_bytes(GifFileType *gif, GifByteType *dst, int n) {
    gif_input *in = gif->UserData;
    size_t left = in->length - in->offset;
    size_t take = n < 0 ? 0 : (size_t)n < left ? (size_t)n : left;
    memcpy(dst, in->data + in->offset, take);
    in->offset += take;
    return (int)take;
}

static const char *gif_text(int error) {
    const char *text = GifErrorString(error);
    return text ? text : "unknown error";
}

static int gif_status(int error) {
    return error == D_GIF_ERR_READ_FAILED || error == D_GIF_ERR_EOF_TOO_SOON ? CTH_ERR_TRUNCATED
         : error == D_GIF_ERR_NOT_ENOUGH_MEM ? CTH_ERR_MEMORY : CTH_ERR_CORRUPT;
}

int cth_decode_gif(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    gif_input input = { data, length, 0 };
    int error = 0;
    GifFileType *gif = DGifOpen(&input, read_bytes, &error);
    if (!gif) return cth_fail(out, gif_status(error), "not a valid GIF: %s", gif_text(error));
    uint32_t width = gif->SWidth > 0 ? (uint32_t)gif->SWidth : 0, height = gif->SHeight > 0 ? (uint32_t)gif->SHeight : 0;
    out->source_width = width;
    out->source_height = height;
    int status = CTH_OK;
    uint8_t *canvas = NULL, *line = NULL;
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET) {
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a GIF of %u x %u pixels is over the budget of %llu pixels", width, height,
                            CTH_PIXEL_BUDGET);
        goto done;
    }
    int transparent = -1;
    int blocks = 0; /* records and extension blocks before the first frame: the probe's bound */
    for (;;) {
        if (++blocks > CTH_GIF_RECORDS) {
            status = cth_fail(out, CTH_ERR_CORRUPT, "a GIF whose first frame comes after more than %d records", CTH_GIF_RECORDS);
            goto done;
        }
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            status = cth_fail(out, gif_status(gif->Error), "a GIF record cannot be read: %s", gif_text(gif->Error));
            goto done;
        }
        if (record == TERMINATE_RECORD_TYPE) {
            status = cth_fail(out, CTH_ERR_CORRUPT, "a GIF without an image");
            goto done;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                status = cth_fail(out, gif_status(gif->Error), "a GIF extension cannot be read");
                goto done;
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) transparent = control.TransparentColor;
            }
            while (block) {
                if (++blocks > CTH_GIF_RECORDS) {
                    status = cth_fail(out, CTH_ERR_CORRUPT, "a GIF whose first frame comes after more than %d records", CTH_GIF_RECORDS);
                    goto done;
                }
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
                    status = cth_fail(out, gif_status(gif->Error), "a GIF extension cannot be read");
                    goto done;
                }
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            status = cth_fail(out, gif_status(gif->Error), "a GIF image descriptor cannot be read");
            goto done;
        }
        break;
    }
    GifImageDesc *frame = &gif->Image;
    if (frame->Width <= 0 || frame->Height <= 0 || (unsigned long long)frame->Width * (unsigned long long)frame->Height > CTH_PIXEL_BUDGET) {
        /* Its rows are decoded even where they fall off the screen: a frame far larger than a
           tiny screen is as much work as an image that size. */
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a GIF frame of %d x %d pixels", frame->Width, frame->Height);
        goto done;
    }
    /* The screen grown to hold the first frame, as the probe sizes the item (and browsers draw it). */
    if (frame->Left >= 0 && frame->Top >= 0) {
        if ((uint32_t)frame->Left + (uint32_t)frame->Width > width) width = (uint32_t)frame->Left + (uint32_t)frame->Width;
        if ((uint32_t)frame->Top + (uint32_t)frame->Height > height) height = (uint32_t)frame->Top + (uint32_t)frame->Height;
        out->source_width = width;
        out->source_height = height;
    }
    if (width == 0 || height == 0) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "the GIF's logical screen is %u x %u", width, height);
        goto done;
    }
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET) {
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a GIF of %u x %u pixels is over the budget of %llu pixels", width, height,
                            CTH_PIXEL_BUDGET);
        goto done;
    }
    ColorMapObject *colors = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
    if (!colors) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "a GIF image without a colour map");
        goto done;
    }
    canvas = calloc((size_t)width * height, 4); /* transparent where the frame draws nothing */
    line = malloc(frame->Width > 0 ? (size_t)frame->Width : 1);
    if (!canvas || !line) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
        goto done;
    }
    static const int starts[4] = { 0, 4, 2, 1 }, steps[4] = { 8, 8, 4, 2 };
    int passes = frame->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (int y = frame->Interlace ? starts[pass] : 0; y < frame->Height; y += frame->Interlace ? steps[pass] : 1) {
            if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) {
                status = cth_fail(out, gif_status(gif->Error), "the GIF's image data cannot be read: %s", gif_text(gif->Error));
                goto done;
            }
            int cy = frame->Top + y;
            if (cy < 0 || (uint32_t)cy >= height) continue;
            for (int x = 0; x < frame->Width; x++) {
                int cx = frame->Left + x;
                if (cx < 0 || (uint32_t)cx >= width || line[x] == transparent || line[x] >= colors->ColorCount) continue;
                GifColorType c = colors->Colors[line[x]];
                uint8_t *p = canvas + ((size_t)cy * width + (size_t)cx) * 4;
                p[0] = c.Red; p[1] = c.Green; p[2] = c.Blue; p[3] = 255;
            }
        }
    }
    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    out->decoded_width = width;
    out->decoded_height = height;
    cth_resizer resizer;
    if (cth_resizer_init(&resizer, width, height, target_width, target_height, 4) != CTH_OK) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t y = 0; y < height; y++) cth_resizer_push(&resizer, canvas + (size_t)y * width * 4);
    request->raster = cth_resizer_finish(&resizer);
    cth_resizer_free(&resizer);

done:
    free(canvas);
    free(line);
    DGifCloseFile(gif, &error);
    return status;
}
