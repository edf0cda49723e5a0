/*
 * PNG: png_read_info only (it stops at the first IDAT header). libpng reads through a filter
 * that shows it the signature, IHDR and the other critical chunks, and hides ancillary chunks
 * after IHDR: big iCCP, iTXt or zTXt chunks are skipped by offset, never read or inflated.
 * The filter itself reads the first eXIf chunk lazily. IHDR must be the first chunk.
 */
#include "probe_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    jmp_buf jump;
    cip_reader *reader;
    int fail_status;          /* set by the filter before it jumps; 0: libpng's own error */
    char message[120];        /* libpng's error text */
    uint64_t pass_left;       /* bytes of the current chunk still to hand to libpng */
    uint8_t pending[16];      /* a chunk's first bytes, already read by the filter */
    size_t pending_next, pending_end;
    int ihdr_seen;
    uint32_t ihdr_width, ihdr_height;
    int exif_seen;
    cip_exif exif;
    png_structp png;          /* here, not in locals: they are read after a longjmp */
    png_infop info;
} png_probe;

static void fail_jump(png_probe *p, int status, const char *message) {
    p->fail_status = status;
    if (message != NULL) snprintf(p->message, sizeof p->message, "%s", message);
    longjmp(p->jump, 1);
}

static void read_exact(png_probe *p, uint8_t *dst, size_t n) {
    if (cip_reader_read(p->reader, dst, n) < n)
        fail_jump(p, p->reader->io_errno != 0 ? CIP_ERR_OPEN : CIP_ERR_TRUNCATED, NULL);
}

static uint32_t be32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* At a chunk boundary: skip hidden chunks, then stage the next chunk that libpng sees. */
static void next_chunk(png_probe *p) {
    for (;;) {
        uint8_t *head = p->pending;
        read_exact(p, head, 8);
        uint32_t length = be32(head);
        int ancillary = (head[4] & 0x20) != 0;
        if (!p->ihdr_seen) {
            if (memcmp(head + 4, "IHDR", 4) != 0 || length != 13)
                fail_jump(p, CIP_ERR_CORRUPT, "the first PNG chunk is not a 13-byte IHDR");
            read_exact(p, head + 8, 8);
            p->ihdr_width = be32(head + 8);
            p->ihdr_height = be32(head + 12);
            p->ihdr_seen = 1;
            p->pending_end = 16;
        } else if (ancillary) {
            if (memcmp(head + 4, "eXIf", 4) == 0 && !p->exif_seen) {
                p->exif_seen = 1;
                if (cip_exif_read(p->reader, length, &p->exif) != 0) fail_jump(p, CIP_ERR_TRUNCATED, NULL);
                cip_reader_skip(p->reader, 4); /* CRC: a bad one in an ancillary chunk is only a warning */
            } else {
                cip_reader_skip(p->reader, (uint64_t)length + 4);
            }
            continue;
        } else {
            p->pending_end = 8;
        }
        p->pending_next = 0;
        p->pass_left = (uint64_t)length + 12;
        return;
    }
}

static void on_read(png_structp png, png_bytep dst, size_t n) {
    png_probe *p = png_get_io_ptr(png);
    while (n > 0) {
        if (p->pass_left == 0) next_chunk(p);
        size_t take = p->pass_left < n ? (size_t)p->pass_left : n;
        size_t staged = p->pending_end - p->pending_next;
        if (staged > 0) {
            if (take > staged) take = staged;
            memcpy(dst, p->pending + p->pending_next, take);
            p->pending_next += take;
        } else {
            read_exact(p, dst, take);
        }
        dst += take;
        n -= take;
        p->pass_left -= take;
    }
}

static void on_error(png_structp png, png_const_charp message) {
    png_probe *p = png_get_error_ptr(png);
    fail_jump(p, 0, message);
}

static void on_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

int cip_probe_png(cip_reader *reader, cip_result *out) {
    out->format = CIP_FORMAT_PNG;
    png_probe *p = calloc(1, sizeof *p);
    if (p == NULL) return cip_fail(out, CIP_ERR_CORRUPT, "out of memory");
    p->reader = reader;
    p->pass_left = 8; /* the signature goes to libpng as it is */
    int status = CIP_OK;

    if (setjmp(p->jump) != 0) {
        int side_bad = p->ihdr_seen && (p->ihdr_width == 0 || p->ihdr_height == 0
                                        || p->ihdr_width > CIP_MAX_SIDE || p->ihdr_height > CIP_MAX_SIDE);
        if (p->fail_status == CIP_ERR_TRUNCATED) {
            status = cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the PNG header");
        } else if (p->fail_status == CIP_ERR_OPEN) {
            out->sys_errno = reader->io_errno;
            status = cip_fail(out, CIP_ERR_OPEN, "read failed: %s", strerror(reader->io_errno));
        } else if (p->fail_status == 0 && side_bad && strstr(p->message, "CRC") == NULL) {
            status = cip_fail(out, CIP_ERR_DIMENSIONS, "the PNG header declares %ux%u pixels",
                              p->ihdr_width, p->ihdr_height);
        } else {
            status = cip_fail(out, CIP_ERR_CORRUPT, "%s", p->message);
        }
        goto done;
    }

    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, p, on_error, on_warning);
    if (p->png == NULL) fail_jump(p, CIP_ERR_CORRUPT, "libpng could not start");
    p->info = png_create_info_struct(p->png);
    if (p->info == NULL) fail_jump(p, CIP_ERR_CORRUPT, "libpng could not start");
    png_set_user_limits(p->png, 0x7fffffffU, 0x7fffffffU); /* our own limit is applied below */
    png_set_read_fn(p->png, p, on_read);
    png_read_info(p->png, p->info);
    out->width = png_get_image_width(p->png, p->info);
    out->height = png_get_image_height(p->png, p->info);
    if (out->width > CIP_MAX_SIDE || out->height > CIP_MAX_SIDE)
        status = cip_fail(out, CIP_ERR_DIMENSIONS, "the PNG header declares %ux%u pixels", out->width, out->height);
    else
        cip_exif_apply(&p->exif, out);

done:
    if (p->png != NULL) png_destroy_read_struct(&p->png, p->info != NULL ? &p->info : NULL, NULL);
    free(p);
    return status;
}
