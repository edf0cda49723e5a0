/* Entry points: open and check the file, sniff the format by its magic bytes, dispatch. */
#include "format_probes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t jpeg_magic[3] = { 0xFF, 0xD8, 0xFF };
static const uint8_t png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };

static void reset(cip_result *out, int64_t size) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    out->byte_size = size;
}

/* An ISO base media file is HEIF or AVIF by the brands of its ftyp box (the major brand, then
   the compatible ones): AV1 brands make it AVIF, HEIF's image brands HEIC; NONE for others
   (an MP4 video, a QuickTime movie). */
static int heif_format(const uint8_t *buf, size_t n) {
    uint32_t box = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
    size_t end = box < 16 ? 12 : box;
    if (end > n) end = n;
    static const char *avif[] = { "avif", "avis" };
    static const char *heic[] = { "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "mif2" };
    int found = CIP_FORMAT_NONE;
    for (size_t at = 8; at + 4 <= end; at += at == 8 ? 8 : 4) { /* skip the minor version after the major brand */
        for (size_t i = 0; i < sizeof avif / sizeof *avif; i++)
            if (memcmp(buf + at, avif[i], 4) == 0) return CIP_FORMAT_AVIF;
        for (size_t i = 0; i < sizeof heic / sizeof *heic; i++)
            if (memcmp(buf + at, heic[i], 4) == 0) found = CIP_FORMAT_HEIC;
    }
    return found;
}

/* Magic bytes decide; a file shorter than a magic that it starts like is a truncated one. */
static int probe_reader(cip_reader *r, cip_result *out, const uint8_t *head, size_t head_length) {
    if (r->size == 0) return cip_fail(out, CIP_ERR_EMPTY, "the file is empty");
    size_t n = head_length > 0 ? cip_reader_fill_from(r, head, head_length) : cip_reader_fill(r);
    if (n == 0 && r->io_errno != 0) {
        out->sys_errno = r->io_errno;
        return cip_fail(out, CIP_ERR_OPEN, "read failed: %s", strerror(r->io_errno));
    }
    if (n == 0) return cip_fail(out, CIP_ERR_EMPTY, "the file is empty");
    size_t jn = n < sizeof jpeg_magic ? n : sizeof jpeg_magic;
    size_t pn = n < sizeof png_magic ? n : sizeof png_magic;
    if (memcmp(r->buf, jpeg_magic, jn) == 0) {
        if (jn < sizeof jpeg_magic) {
            out->format = CIP_FORMAT_JPEG;
            return cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the JPEG signature");
        }
        return cip_probe_jpeg(r, out);
    }
    if (memcmp(r->buf, png_magic, pn) == 0) {
        if (pn < sizeof png_magic) {
            out->format = CIP_FORMAT_PNG;
            return cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the PNG signature");
        }
        return cip_probe_png(r, out);
    }
    if (n >= 12 && memcmp(r->buf, "RIFF", 4) == 0 && memcmp(r->buf + 8, "WEBP", 4) == 0) return cip_probe_webp(r, out);
    if (n >= 6 && (memcmp(r->buf, "GIF87a", 6) == 0 || memcmp(r->buf, "GIF89a", 6) == 0)) return cip_probe_gif(r, out);
    if (n >= 12 && memcmp(r->buf + 4, "ftyp", 4) == 0) {
        int format = heif_format(r->buf, n);
        if (format != CIP_FORMAT_NONE) return cip_probe_heif(r, out, format);
    }
    return CIP_UNSUPPORTED;
}

/* Probes with a reader of its own, on the heap (its 16 KiB buffer stays off a pool thread's or a
   fuzzer's stack), over `fd`, or over `memory` where it is not NULL (fd -1); records the bytes
   read. `head`: the file's first bytes, already read by the caller (NULL and 0 for none). */
static int probe_with_reader(int fd, const uint8_t *memory, uint64_t size, const uint8_t *head, size_t head_length,
                             cip_result *out) {
    cip_reader *r = malloc(sizeof *r);
    if (r == NULL) return cip_fail(out, CIP_ERR_CORRUPT, "out of memory");
    if (memory != NULL) cip_reader_init_memory(r, memory, (size_t)size);
    else cip_reader_init_fd(r, fd, size); /* fd -1 and size 0: empty memory, as cip_reader_init_memory makes it */
    int status = probe_reader(r, out, head, head_length);
    out->bytes_read = (int64_t)r->bytes_read;
    free(r);
    return status;
}

int cip_probe_fd(int fd, cip_result *out) {
    reset(out, 0);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        out->sys_errno = errno;
        return cip_fail(out, CIP_ERR_OPEN, "stat failed: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
        return cip_fail(out, CIP_ERR_NOT_REGULAR, "not a regular file: %s", kind);
    }
    out->byte_size = st.st_size;
    return probe_with_reader(fd, NULL, (uint64_t)st.st_size, NULL, 0, out);
}

int cip_probe_fd_head(int fd, uint64_t size, const uint8_t *head, size_t head_length, cip_result *out) {
    reset(out, (int64_t)size);
    if (fd < 0) { /* the reader would take it for memory */
        out->sys_errno = EBADF;
        return cip_fail(out, CIP_ERR_OPEN, "read failed: %s", strerror(EBADF));
    }
    return probe_with_reader(fd, NULL, size, head, head_length, out);
}

int cip_probe_path(const char *path, cip_result *out) {
    int fd;
    do {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        reset(out, 0);
        out->sys_errno = errno;
        return cip_fail(out, CIP_ERR_OPEN, "%s", strerror(errno));
    }
    int status = cip_probe_fd(fd, out);
    close(fd);
    return status;
}

int cip_probe_memory(const uint8_t *data, size_t length, cip_result *out) {
    reset(out, (int64_t)length);
    return probe_with_reader(-1, data, length, NULL, 0, out);
}
