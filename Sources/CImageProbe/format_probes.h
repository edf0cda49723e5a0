/*
 * Internal to CImageProbe: the format readers, which only the dispatcher (probe.c) includes.
 * Each reads one format's header through the shared helpers (probe_shared.h) and never calls
 * back into the dispatcher.
 */
#ifndef CIMAGEPROBE_FORMAT_PROBES_H
#define CIMAGEPROBE_FORMAT_PROBES_H

#include "probe_shared.h"

/* Format probes. The reader's buffer holds at least the magic bytes. */
int cip_probe_jpeg(cip_reader *r, cip_result *out);
int cip_probe_png(cip_reader *r, cip_result *out);
int cip_probe_webp(cip_reader *r, cip_result *out);
int cip_probe_gif(cip_reader *r, cip_result *out);
/* HEIC/HEIF and AVIF: `format` is CIP_FORMAT_HEIC or CIP_FORMAT_AVIF, from the ftyp brands. */
int cip_probe_heif(cip_reader *r, cip_result *out, int format);

#endif
