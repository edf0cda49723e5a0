#!/usr/bin/env python3
"""Pillow's thumbnails and the quality check of ours, for scripts/thumbnails.sh.

  thumbnail_peers.py pillow LIST OUT [PROCESSES]   draft() + thumbnail() + exif_transpose, JPEG q80
  thumbnail_peers.py psnr LIST OURS [SAMPLE]       PSNR of ours (OURS/<line>.jpg|png) against
                                                   Pillow's LANCZOS reduction of the full decode
"""
import math
import multiprocessing
import os
import sys

from PIL import Image, ImageOps

SIZE = 256


def pillow_one(job):
    index, path, out = job
    with Image.open(path) as img:
        img.draft("RGB", (SIZE, SIZE))
        img.thumbnail((SIZE, SIZE))
        img = ImageOps.exif_transpose(img)
        if img.mode in ("RGBA", "LA", "P"):
            img.save(f"{out}/{index}.png")
        else:
            img.convert("RGB").save(f"{out}/{index}.jpg", quality=80)


def psnr(ours_path, source):
    """Over the colour channels only (alpha, constant in opaque images, would inflate it), each
    premultiplied by alpha: what the pixel shows over black."""
    import numpy
    with Image.open(source) as img:
        img.load()
        img = ImageOps.exif_transpose(img).convert("RGBA")
    with Image.open(ours_path) as ours:
        ours = ours.convert("RGBA")
    reference = img.resize(ours.size, Image.LANCZOS)

    def visible(image):
        pixels = numpy.asarray(image, dtype=numpy.float64)
        return pixels[..., :3] * pixels[..., 3:4] / 255

    error = float(numpy.mean((visible(ours) - visible(reference)) ** 2))
    return 99.0 if error == 0 else 10 * math.log10(255 * 255 / error)


def main():
    mode, list_path, out = sys.argv[1:4]
    paths = open(list_path).read().split("\n")
    paths = [p for p in paths if p]
    if mode == "pillow":
        processes = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
        os.makedirs(out, exist_ok=True)
        with multiprocessing.Pool(processes) as pool:
            pool.map(pillow_one, [(i + 1, p, out) for i, p in enumerate(paths)], chunksize=64)
    else:
        sample = int(sys.argv[4]) if len(sys.argv) > 4 else 200
        step = max(1, len(paths) // sample)
        values = []
        for i in range(0, len(paths), step):
            for ext in ("jpg", "png"):
                ours = f"{out}/{i + 1}.{ext}"
                if os.path.exists(ours):
                    values.append(psnr(ours, paths[i]))
        values.sort()
        print(f"psnr\t{len(values)} files\tmin {values[0]:.1f} dB\tmedian {values[len(values) // 2]:.1f} dB\tmean {sum(values) / len(values):.1f} dB")


if __name__ == "__main__":
    main()
