/*
 * GIF: giflib's DGifOpen reads the signature and the logical screen descriptor only (its
 * input function hands it bytes from the reader); the screen's size is the item's, whatever
 * the frames (an animated GIF is one item). No orientation, no date.
 */
#include "probe_shared.h"

#include <gif_lib.h>

static int read_bytes(GifFileType *gif, GifByteType *dst, int n) {
    cip_reader *r = gif->UserData;
    return n <= 0 ? 0 : (int)cip_reader_read(r, dst, (size_t)n);
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
    DGifCloseFile(gif, &error);
    if (width == 0 || height == 0) return cip_fail(out, CIP_ERR_DIMENSIONS, "the GIF's logical screen is %ux%u", width, height);
    out->width = width;
    out->height = height;
    return CIP_OK;
}
