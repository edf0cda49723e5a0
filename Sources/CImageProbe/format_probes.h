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

#endif
