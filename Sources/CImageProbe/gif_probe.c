/*
 * GIF: giflib's DGifOpen reads the signature and the logical screen descriptor (its input
 * function hands it bytes from the reader), then the records up to the first image descriptor,
 * never its pixels. The item's size is the screen grown to hold the first frame where it does
 * not (a screen of 0x0 or too small), as browsers draw it; later frames do not change it (an
 * animated GIF is one item). No orientation, no date.
 */
#include "probe_shared.h"

#include <gif_lib.h>

/* Records and extension blocks read before the first frame, at most. */
#define CIP_GIF_RECORDS 4096

static int read_bytes(GifFileType *gif, GifByteType *dst, int n) {
    cip_reader *r = gif->UserData;
    return n <= 0 ? 0 : (int)cip_reader_read(r, dst, (size_t)n);
}

/* Grows *width x *height to hold the first frame (its offset and size), as Chromium's,
   Firefox's and libvips' readers do: a screen smaller than its first frame is a writer's
   mistake they show past. Stops at the first record it cannot read, leaving the size as it is,
   and reads at most CIP_GIF_RECORDS records and extension blocks (about 1 MiB) to get there; the
   thumbnail's decoder keeps to the same bound, so the two agree on the size. */
static void grow_to_first_frame(GifFileType *gif, uint32_t *width, uint32_t *height) {
    int blocks = 0;
    for (;;) {
        if (++blocks > CIP_GIF_RECORDS) return;
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR || record == TERMINATE_RECORD_TYPE) return;
        if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return;
            while (block != NULL) {
                if (++blocks > CIP_GIF_RECORDS || DGifGetExtensionNext(gif, &block) == GIF_ERROR) return;
            }
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) return;
            GifImageDesc *frame = &gif->Image;
            if (frame->Left < 0 || frame->Top < 0 || frame->Width <= 0 || frame->Height <= 0) return;
            uint32_t right = (uint32_t)frame->Left + (uint32_t)frame->Width;
            uint32_t bottom = (uint32_t)frame->Top + (uint32_t)frame->Height;
            if (right > *width) *width = right;
            if (bottom > *height) *height = bottom;
            return;
        }
    }
}

int cip_probe_gif(cip_reader *r, cip_result *out) {
    out->format = CIP_FORMAT_GIF;
    if (r->end - r->next < 13) return cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the GIF header");
    int error = 0;
    GifFileType *gif = DGifOpen(r, read_bytes, &error);
    if (gif == NULL) {
        const char *text = GifErrorString(error);
        return cip_fail(out, error == D_GIF_ERR_READ_FAILED ? CIP_ERR_TRUNCATED : CIP_ERR_CORRUPT,
                        "not a valid GIF header: %s", text != NULL ? text : "unknown error");
    }
    uint32_t width = gif->SWidth > 0 ? (uint32_t)gif->SWidth : 0;
    uint32_t height = gif->SHeight > 0 ? (uint32_t)gif->SHeight : 0;
    grow_to_first_frame(gif, &width, &height);
    DGifCloseFile(gif, &error);
    if (width == 0 || height == 0) return cip_fail(out, CIP_ERR_DIMENSIONS, "the GIF's logical screen is %ux%u, and no frame gives it a size", width, height);
    out->width = width;
    out->height = height;
    return CIP_OK;
}
