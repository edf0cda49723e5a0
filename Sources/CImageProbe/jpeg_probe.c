/*
 * JPEG: jpeg_read_header only (never jpeg_start_decompress). A source manager over
 * cip_reader whose skip moves an offset, so libjpeg passes ICC profiles, Photoshop blocks
 * and other APPn segments without reading them; an APP1 handler reads the first EXIF block
 * lazily. libjpeg's state lives on the heap, and its errors longjmp back here, in C.
 */
#include "probe_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_decompress_struct cinfo; /* first, so a cinfo pointer is a context pointer */
    struct jpeg_error_mgr err;
    struct jpeg_source_mgr src;
    jmp_buf jump;
    cip_reader *reader;
    int fail_status;       /* set by the source manager before it jumps; 0: libjpeg's own error */
    int exif_seen;
    cip_exif exif;
} jpeg_probe;

static jpeg_probe *probe_of(j_decompress_ptr cinfo) { return (jpeg_probe *)cinfo; }

static void fail_jump(jpeg_probe *p, int status) {
    p->fail_status = status;
    longjmp(p->jump, 1);
}

/* libjpeg's buffer is the reader's buffer: these move the position between the two views. */
static void to_reader(jpeg_probe *p) {
    p->reader->next = p->reader->end - p->src.bytes_in_buffer;
}

static void from_reader(jpeg_probe *p) {
    p->src.next_input_byte = p->reader->buf + p->reader->next;
    p->src.bytes_in_buffer = p->reader->end - p->reader->next;
}

static void on_error_exit(j_common_ptr cinfo) { fail_jump(probe_of((j_decompress_ptr)cinfo), 0); }
static void on_emit_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }
static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void src_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void src_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean src_fill(j_decompress_ptr cinfo) {
    jpeg_probe *p = probe_of(cinfo);
    if (cip_reader_fill(p->reader) == 0)
        fail_jump(p, p->reader->io_errno != 0 ? CIP_ERR_OPEN : CIP_ERR_TRUNCATED);
    from_reader(p);
    return TRUE;
}

static void src_skip(j_decompress_ptr cinfo, long count) {
    if (count <= 0) return;
    jpeg_probe *p = probe_of(cinfo);
    to_reader(p);
    cip_reader_skip(p->reader, (uint64_t)count);
    from_reader(p);
}

static void read_exact(jpeg_probe *p, uint8_t *dst, size_t n) {
    if (cip_reader_read(p->reader, dst, n) < n)
        fail_jump(p, p->reader->io_errno != 0 ? CIP_ERR_OPEN : CIP_ERR_TRUNCATED);
}

/* APP1: the first "Exif\0\0" block is parsed, everything else (XMP, later EXIF blocks) skipped. */
static boolean on_app1(j_decompress_ptr cinfo) {
    static const uint8_t exif_id[6] = { 'E', 'x', 'i', 'f', 0, 0 };
    jpeg_probe *p = probe_of(cinfo);
    to_reader(p);
    uint8_t head[2];
    read_exact(p, head, 2);
    uint32_t length = (uint32_t)head[0] << 8 | head[1];
    if (length < 2) ERREXIT(cinfo, JERR_BAD_LENGTH);
    length -= 2;
    if (!p->exif_seen && length >= sizeof exif_id) {
        uint8_t id[sizeof exif_id];
        read_exact(p, id, sizeof id);
        length -= sizeof id;
        if (memcmp(id, exif_id, sizeof id) == 0) {
            p->exif_seen = 1;
            if (cip_exif_read(p->reader, length, &p->exif) != 0) fail_jump(p, CIP_ERR_TRUNCATED);
            length = 0;
        }
    }
    cip_reader_skip(p->reader, length);
    from_reader(p);
    return TRUE;
}

/* Whether libjpeg stopped at a frame it does not decode but whose header gives the image's size:
   a lossless frame (SOF3, SOF11; differential SOF5-7 and SOF13-15 come only after a DHP), or a
   hierarchical JPEG's DHP marker, which declares the full image's size before its first frame
   (and which libjpeg-turbo 2 meets as an unknown marker). Not JPG (0xC8), a reserved marker. */
static int is_undecodable_frame(jpeg_probe *p) {
    int marker = p->err.msg_parm.i[0];
    return (p->err.msg_code == JERR_SOF_UNSUPPORTED && marker != 0xC8)
        || (p->err.msg_code == JERR_UNKNOWN_MARKER && marker == 0xDE);
}

/* That frame's (or DHP's) size, read as for any SOF (length, precision, height, width) right
   after the marker libjpeg stopped at. 1 when the size is there. */
static int read_unsupported_sof(jpeg_probe *p) {
    to_reader(p);
    uint8_t sof[7];
    if (cip_reader_read(p->reader, sof, sizeof sof) < sizeof sof) return 0;
    p->cinfo.image_height = (JDIMENSION)sof[3] << 8 | sof[4];
    p->cinfo.image_width = (JDIMENSION)sof[5] << 8 | sof[6];
    return p->cinfo.image_width > 0 && p->cinfo.image_height > 0;
}

int cip_probe_jpeg(cip_reader *reader, cip_result *out) {
    out->format = CIP_FORMAT_JPEG;
    jpeg_probe *p = calloc(1, sizeof *p);
    if (p == NULL) return cip_fail(out, CIP_ERR_CORRUPT, "out of memory");
    p->reader = reader;
    p->cinfo.err = jpeg_std_error(&p->err);
    p->err.error_exit = on_error_exit;
    p->err.emit_message = on_emit_message;
    p->err.output_message = on_output_message;
    int status = CIP_OK;

    if (setjmp(p->jump) != 0) {
        /* libjpeg-turbo raises these after get_sof stored the size: the size is still good. */
        int code = p->err.msg_code;
        if (p->fail_status == 0 && (code == JERR_BAD_PRECISION || code == JERR_IMAGE_TOO_BIG)
            && p->cinfo.image_width > 0 && p->cinfo.image_height > 0) {
            status = CIP_OK;
        } else if (p->fail_status == 0 && is_undecodable_frame(p) && read_unsupported_sof(p)) {
            status = CIP_OK; /* lossless or hierarchical: its size is read as the format says */
        } else if (p->fail_status == CIP_ERR_TRUNCATED) {
            status = cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the JPEG header");
        } else if (p->fail_status == CIP_ERR_OPEN) {
            out->sys_errno = reader->io_errno;
            status = cip_fail(out, CIP_ERR_OPEN, "read failed: %s", strerror(reader->io_errno));
        } else if (code == JERR_EMPTY_IMAGE) {
            status = cip_fail(out, CIP_ERR_DIMENSIONS, "the JPEG header declares a zero width or height");
        } else {
            char text[JMSG_LENGTH_MAX];
            p->err.format_message((j_common_ptr)&p->cinfo, text);
            status = cip_fail(out, CIP_ERR_CORRUPT, "%s", text);
        }
        goto done;
    }

    jpeg_create_decompress(&p->cinfo);
    p->src.init_source = src_init;
    p->src.fill_input_buffer = src_fill;
    p->src.skip_input_data = src_skip;
    p->src.resync_to_restart = jpeg_resync_to_restart;
    p->src.term_source = src_term;
    p->cinfo.src = &p->src;
    from_reader(p);
    jpeg_set_marker_processor(&p->cinfo, JPEG_APP0 + 1, on_app1);
    if (jpeg_read_header(&p->cinfo, TRUE) != JPEG_HEADER_OK)
        status = cip_fail(out, CIP_ERR_CORRUPT, "the JPEG holds tables but no image");

done:
    if (status == CIP_OK) {
        out->width = p->cinfo.image_width;
        out->height = p->cinfo.image_height;
        cip_exif_apply(&p->exif, out);
    }
    jpeg_destroy_decompress(&p->cinfo); /* safe on a struct that creation did not finish */
    free(p);
    return status;
}
