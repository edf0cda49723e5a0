/*
 * HEIC/HEIF and AVIF: libheif parses the container through a reader that serves its reads
 * with pread (or from memory): the `ftyp` and `meta` boxes (primary item, `ispe`, `irot`,
 * `imir`, `clap`, item locations), while `mdat`, the coded image data, is only skipped over.
 * The size is the primary item's after its transformations (what every viewer shows): the
 * file's EXIF orientation is informational for these formats and is never applied again.
 * The capture date comes from the primary item's Exif metadata item.
 */
#include "probe_shared.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libheif/heif.h>

typedef struct {
    cip_reader *reader; /* its fd or memory, its size, its byte count, and its first buffer */
    int64_t position;
} heif_source;

static int64_t source_position(void *userdata) { return ((heif_source *)userdata)->position; }

static int source_read(void *data, size_t size, void *userdata) {
    heif_source *s = userdata;
    cip_reader *r = s->reader;
    if (size == 0) return 0; /* libheif may ask for nothing, with no buffer */
    if (s->position < 0 || (uint64_t)s->position > r->size || size > r->size - (uint64_t)s->position) return -1;
    uint64_t buffered_from = r->pos - r->end; /* the dispatcher's first read is still in the buffer */
    if ((uint64_t)s->position >= buffered_from && (uint64_t)s->position + size <= r->pos) {
        memcpy(data, r->buf + ((uint64_t)s->position - buffered_from), size);
        s->position += (int64_t)size;
        return 0;
    }
    if (r->fd < 0) {
        memcpy(data, r->mem + s->position, size);
    } else {
        size_t done = 0;
        while (done < size) {
            ssize_t got = pread(r->fd, (uint8_t *)data + done, size - done, (off_t)(s->position + (int64_t)done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                if (got < 0) r->io_errno = errno;
                return -1;
            }
            done += (size_t)got;
        }
    }
    s->position += (int64_t)size;
    r->bytes_read += size;
    return 0;
}

static int source_seek(int64_t position, void *userdata) {
    heif_source *s = userdata;
    if (position < 0 || (uint64_t)position > s->reader->size) return -1;
    s->position = position;
    return 0;
}

static enum heif_reader_grow_status source_wait(int64_t target, void *userdata) {
    heif_source *s = userdata;
    return target >= 0 && (uint64_t)target <= s->reader->size ? heif_reader_grow_status_size_reached
                                                              : heif_reader_grow_status_size_beyond_eof;
}

static uint32_t be32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* The capture date from the item's Exif block: 4 bytes of offset to the TIFF header, then EXIF. */
static void read_exif_date(const struct heif_image_handle *handle, cip_result *out) {
    heif_item_id id;
    if (heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) < 1) return;
    size_t size = heif_image_handle_get_metadata_size(handle, id);
    if (size < 4 || size > CIP_EXIF_ITEM_MAX) return;
    uint8_t *block = malloc(size);
    if (block == NULL) return;
    struct heif_error error = heif_image_handle_get_metadata(handle, id, block);
    uint32_t offset = error.code == heif_error_Ok ? be32(block) : UINT32_MAX;
    if (offset < size - 4) {
        cip_exif exif = { 0 };
        size_t need = 0;
        size_t length = size - 4 - offset;
        cip_exif_parse(block + 4 + offset, length, length, &exif, &need);
        cip_exif_apply(&exif, out);
        out->orientation = 1; /* irot/imir already gave the display size */
    }
    free(block);
}

int cip_probe_heif(cip_reader *r, cip_result *out, int format) {
    out->format = format;
    heif_source source = { r, 0 };
    struct heif_reader reader = { 1, source_position, source_read, source_seek, source_wait };
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) return cip_fail(out, CIP_ERR_CORRUPT, "out of memory");
    int status = CIP_OK;
    struct heif_image_handle *handle = NULL;
    struct heif_error error = heif_context_read_from_reader(context, &reader, &source, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(context, &handle);
    if (error.code != heif_error_Ok) {
        if (r->io_errno != 0) {
            out->sys_errno = r->io_errno;
            status = cip_fail(out, CIP_ERR_OPEN, "read failed: %s", strerror(r->io_errno));
        } else if (error.subcode == heif_suberror_End_of_data) {
            status = cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside its HEIF boxes");
        } else if (error.subcode == heif_suberror_Security_limit_exceeded) {
            status = cip_fail(out, CIP_ERR_DIMENSIONS, "%s", error.message != NULL ? error.message : "too large");
        } else {
            status = cip_fail(out, CIP_ERR_CORRUPT, "not a valid HEIF container: %s", error.message != NULL ? error.message : "unknown error");
        }
    } else {
        int width = heif_image_handle_get_width(handle);
        int height = heif_image_handle_get_height(handle);
        if (width <= 0 || height <= 0 || (uint32_t)width > CIP_MAX_SIDE || (uint32_t)height > CIP_MAX_SIDE) {
            status = cip_fail(out, CIP_ERR_DIMENSIONS, "the primary image is %dx%d", width, height);
        } else {
            out->width = (uint32_t)width;
            out->height = (uint32_t)height;
            read_exif_date(handle, out);
        }
        heif_image_handle_release(handle);
    }
    heif_context_free(context);
    return status;
}
