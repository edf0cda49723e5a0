/*
 * cimageprobe: image size from a JPEG, PNG, WebP, GIF, HEIC or AVIF header, without decoding pixels.
 *
 * The only code in catalog's probe that includes jpeglib.h, png.h, webp/decode.h, gif_lib.h or
 * libheif/heif.h. Nothing of those libraries' types leaks through this header: callers see a status
 * code and a plain result struct. libjpeg's and libpng's fatal errors are caught
 * with setjmp/longjmp inside the C code and returned as a status and a message;
 * their warnings are silenced. Every function is reentrant: no global state.
 */
#ifndef CIMAGEPROBE_H
#define CIMAGEPROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a probe found. */
typedef enum {
    CIP_OK = 0,              /* an image: the size fields are set */
    CIP_UNSUPPORTED = 1,     /* none of the formats by its magic bytes: not an error */
    CIP_ERR_OPEN = 2,        /* open/stat/read failed; sys_errno says why */
    CIP_ERR_NOT_REGULAR = 3, /* a directory, FIFO, socket or device */
    CIP_ERR_EMPTY = 4,       /* zero bytes */
    CIP_ERR_TRUNCATED = 5,   /* the file ends before its header does */
    CIP_ERR_CORRUPT = 6,     /* the header is malformed; message says how */
    CIP_ERR_DIMENSIONS = 7   /* a side is 0 or larger than CIP_MAX_SIDE */
} cip_status;

typedef enum {
    CIP_FORMAT_NONE = 0,
    CIP_FORMAT_JPEG = 1,
    CIP_FORMAT_PNG = 2,
    CIP_FORMAT_WEBP = 3,
    CIP_FORMAT_GIF = 4,
    CIP_FORMAT_HEIC = 5,  /* HEIF with HEVC (or another non-AV1) coding: iPhone photos */
    CIP_FORMAT_AVIF = 6
} cip_format;

/** The largest side, in pixels, that a probe accepts (2^24). */
#define CIP_MAX_SIDE 16777216u

/** Bytes a probe reads first, from offset 0: all of a small file, or its header and first segments. */
#define CIP_HEAD_SIZE 16384

/** Length of an EXIF date, "YYYY:MM:DD HH:MM:SS", plus its terminator. */
#define CIP_DATE_LEN 20

/** Length of an EXIF zone offset (OffsetTime*), "+HH:MM", plus its terminator. */
#define CIP_OFFSET_LEN 7

/** One EXIF date as stored, and the offset from UTC its OffsetTime* tag gives. */
typedef struct {
    char date[CIP_DATE_LEN];     /* "YYYY:MM:DD HH:MM:SS" when its shape is right (values unchecked), else "" */
    char offset[CIP_OFFSET_LEN]; /* "+HH:MM" or "-HH:MM" when its shape is right, else "" */
} cip_date;

/** The EXIF dates a probe reads, in the order a capture date is taken from the first valid one. */
enum { CIP_DATE_ORIGINAL = 0, CIP_DATE_DIGITIZED = 1, CIP_DATE_MODIFIED = 2, CIP_DATES = 3 };

typedef struct {
    int32_t format;          /* cip_format; set as soon as the magic bytes match */
    uint32_t width;          /* pixel width as stored */
    uint32_t height;         /* pixel height as stored */
    int32_t orientation;     /* EXIF orientation 1...8; 1 when absent or invalid */
    cip_date dates[CIP_DATES]; /* DateTimeOriginal, DateTimeDigitized, DateTime, with their offsets */
    int64_t byte_size;       /* the file's size (or the buffer's length) */
    int64_t bytes_read;      /* bytes the probe actually read: skipped segments are not counted */
    int32_t sys_errno;       /* errno for CIP_ERR_OPEN */
    char message[160];       /* for errors: what went wrong, one line */
} cip_result;

/**
 * Probes the file at `path`. Opens it read-only and non-blocking (a FIFO named
 * x.jpg never hangs the caller), then refuses anything but a regular file.
 * Symbolic links are followed: callers that must not follow them open the file
 * themselves with O_NOFOLLOW and use cip_probe_fd.
 */
int cip_probe_path(const char *path, cip_result *out);

/** Probes an open file descriptor from offset 0 with pread; the fd is not closed or moved. */
int cip_probe_fd(int fd, cip_result *out);

/**
 * Probes a regular file the caller opened and measured itself (`size`, from its own fstat), from
 * the bytes it has already read from offset 0 (`head`, `head_length` of them, of which at most
 * CIP_HEAD_SIZE are used): the probe reads on from the descriptor past them, with pread, and
 * neither stats nor reads again what the caller has. For a caller that needs the same first
 * bytes for its own purposes (a scanner's fingerprint of the file).
 */
int cip_probe_fd_head(int fd, uint64_t size, const uint8_t *head, size_t head_length, cip_result *out);

/** Probes bytes in memory (fuzzing, tests, data that did not come from a file). */
int cip_probe_memory(const uint8_t *data, size_t length, cip_result *out);

#ifdef __cplusplus
}
#endif

#endif /* CIMAGEPROBE_H */
