#!/usr/bin/env python3
"""Writes the tiny image fixtures the ImageProbe tests read. Run once; the output is committed.
Needs Pillow and, for HEIC and AVIF, heif-enc (Debian's libheif-examples).

JPEGs come from Pillow (libjpeg underneath). PNGs come from the writer below, so that the
interlaced, palette, grayscale+alpha and 16-bit variants are exactly what their names say.
Every file is decoded back with Pillow before it is kept. Needs: pip install pillow.
"""
import struct
import zlib
from pathlib import Path

from PIL import Image

HERE = Path(__file__).parent


def gradient(mode, size):
    w, h = size
    img = Image.new("RGB", size)
    img.putdata([((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1), 128) for y in range(h) for x in range(w)])
    return img.convert(mode)


def jpegs():
    gradient("RGB", (24, 16)).save(HERE / "baseline.jpg", quality=80)
    gradient("RGB", (40, 30)).save(HERE / "progressive.jpg", quality=80, progressive=True)
    gradient("L", (20, 36)).save(HERE / "grayscale.jpg", quality=80)
    gradient("CMYK", (18, 12)).save(HERE / "cmyk.jpg", quality=80)
    gradient("RGB", (64, 48)).save(HERE / "restart.jpg", quality=80, restart_marker_blocks=1)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(path, width, height, color_type, depth, pixel, interlaced=False, palette=None):
    """pixel(x, y) returns the sample bytes of one pixel."""
    def rows(xs, ys):
        return b"".join(b"\x00" + b"".join(pixel(x, y) for x in xs) for y in ys)

    if interlaced:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, width, dx), range(y0, height, dy)
            if len(xs) and len(ys):
                raw += rows(xs, ys)
    else:
        raw = rows(range(width), range(height))
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 1 if interlaced else 0))
    if palette is not None:
        out += chunk(b"PLTE", palette)
    out += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    path.write_bytes(out)


def pngs():
    png(HERE / "rgb.png", 30, 20, 2, 8, lambda x, y: bytes((x * 8, y * 12, 90)))
    png(HERE / "interlaced.png", 33, 17, 2, 8, lambda x, y: bytes((x * 7, y * 15, 60)), interlaced=True)
    png(HERE / "palette.png", 16, 9, 3, 8, lambda x, y: bytes(((x + y) % 4,)),
        palette=bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)))
    png(HERE / "gray-alpha.png", 12, 25, 4, 8, lambda x, y: bytes((x * 20, 255 - y * 10)))
    png(HERE / "rgb16.png", 10, 14, 2, 16, lambda x, y: struct.pack(">HHH", x * 6000, y * 4000, 1234))


# --- WebP, GIF, HEIC and AVIF (issue #15): Pillow writes WebP and GIF; libheif's heif-enc
# (Debian: libheif-examples) writes HEIC and AVIF, and the box surgery below adds the irot and
# imir transformations heif-enc has no option for.

def exif(orientation=1, date=None):
    tags = Image.Exif()
    tags[0x0112] = orientation
    if date:
        tags[0x0132] = date
        tags.get_ifd(0x8769)[0x9003] = date
    return tags.tobytes()


def webps():
    gradient("RGB", (36, 20)).save(HERE / "lossy.webp", quality=80)
    gradient("RGBA", (22, 31)).save(HERE / "lossless.webp", lossless=True)
    # Orientation 6: shown 90 degrees clockwise, so 20x36 is displayed 36x20.
    gradient("RGB", (20, 36)).save(HERE / "exif6.webp", quality=80, exif=exif(6, "2021:04:05 06:07:08"))
    frames = [gradient("RGB", (28, 18)).rotate(i * 90) for i in range(3)]
    frames[0].save(HERE / "animated.webp", save_all=True, append_images=frames[1:], duration=100, loop=0)


def gifs():
    gradient("P", (26, 14)).save(HERE / "still.gif")
    frames = [gradient("P", (30, 22)), gradient("P", (30, 22)).rotate(180)]
    frames[0].save(HERE / "animated.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)


def boxes(data, start, end):
    """(type, start, header length, size) of each box in data[start:end]."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        yield kind.decode("latin-1"), at, header, size
        at += size


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def add_transforms(source, target, properties):
    """Copies a HEIF file, appending property boxes to ipco and associating them (essential)
    with the primary item, after its other properties; item locations move by the growth."""
    data = source.read_bytes()
    meta = next(b for b in boxes(data, 0, len(data)) if b[0] == "meta")
    _, m0, mh, msize = meta
    children = list(boxes(data, m0 + mh + 4, m0 + msize))
    pitm = next(b for b in children if b[0] == "pitm")
    version = data[pitm[1] + pitm[2]]
    primary = struct.unpack(">H" if version == 0 else ">I", data[pitm[1] + pitm[2] + 4:pitm[1] + pitm[2] + (6 if version == 0 else 8)])[0]
    iprp = next(b for b in children if b[0] == "iprp")
    parts = list(boxes(data, iprp[1] + iprp[2], iprp[1] + iprp[3]))
    ipco = next(b for b in parts if b[0] == "ipco")
    count = len(list(boxes(data, ipco[1] + ipco[2], ipco[1] + ipco[3])))
    new_ipco = box("ipco", data[ipco[1] + ipco[2]:ipco[1] + ipco[3]] + b"".join(properties))
    ipma = next(b for b in parts if b[0] == "ipma")
    body = data[ipma[1] + ipma[2]:ipma[1] + ipma[3]]
    ipma_version, flags = body[0], int.from_bytes(body[1:4], "big")
    wide = flags & 1
    entries = struct.unpack(">I", body[4:8])[0]
    at, out = 8, bytearray(body[:8])
    for _ in range(entries):
        id_size = 2 if ipma_version < 1 else 4
        item = int.from_bytes(body[at:at + id_size], "big")
        n = body[at + id_size]
        step = 2 if wide else 1
        associations = body[at + id_size + 1:at + id_size + 1 + n * step]
        if item == primary:
            for index in range(count + 1, count + 1 + len(properties)):
                associations += struct.pack(">H", 0x8000 | index) if wide else bytes([0x80 | index])
            n += len(properties)
        out += body[at:at + id_size] + bytes([n]) + associations
        at += id_size + 1 + (body[at + id_size] * step)
    new_iprp = box("iprp", b"".join(new_ipco if p[0] == "ipco" else box("ipma", bytes(out)) if p[0] == "ipma"
                                   else data[p[1]:p[1] + p[3]] for p in parts))
    new_meta = bytearray(data[m0:m0 + mh + 4])
    for child in children:
        new_meta += new_iprp if child[0] == "iprp" else data[child[1]:child[1] + child[3]]
    new_meta[0:4] = struct.pack(">I", len(new_meta))
    delta = len(new_meta) - msize
    # iloc: file offsets of data after meta move by delta.
    for kind, c0, ch, csize in boxes(new_meta, mh + 4, len(new_meta)):
        if kind != "iloc":
            continue
        p = c0 + ch
        v = new_meta[p]
        offset_size, length_size = new_meta[p + 4] >> 4, new_meta[p + 4] & 15
        base_size, index_size = new_meta[p + 5] >> 4, (new_meta[p + 5] & 15) if v in (1, 2) else 0
        p += 6
        items = struct.unpack(">H" if v < 2 else ">I", new_meta[p:p + (2 if v < 2 else 4)])[0]
        p += 2 if v < 2 else 4
        for _ in range(items):
            p += 2 if v < 2 else 4
            method = 0
            if v in (1, 2):
                method = struct.unpack(">H", new_meta[p:p + 2])[0] & 15
                p += 2
            p += 2  # data reference index
            def bump(at, size):
                value = int.from_bytes(new_meta[at:at + size], "big") + delta
                new_meta[at:at + size] = value.to_bytes(size, "big")
            if method == 0 and base_size:
                bump(p, base_size)
            p += base_size
            extents = struct.unpack(">H", new_meta[p:p + 2])[0]
            p += 2
            for _ in range(extents):
                p += index_size
                if method == 0 and not base_size and offset_size:
                    bump(p, offset_size)
                p += offset_size + length_size
    target.write_bytes(data[:m0] + bytes(new_meta) + data[m0 + msize:])


def lengthen_exif(source, target, padding=9000):
    """Copies a HEIF file, making its Exif item longer than the 256 KiB + 64 the probe once read
    whole (as with a large preview in it), in a file of about 10 KB: a `free` box of `padding`
    bytes is appended, and the item's one extent is followed by 31 more that each span that box
    (libheif takes at most 32 extents an item). Its TIFF header and tags stay at its start."""
    data = source.read_bytes()
    _, m0, mh, msize = next(b for b in boxes(data, 0, len(data)) if b[0] == "meta")
    children = list(boxes(data, m0 + mh + 4, m0 + msize))
    iinf = next(b for b in children if b[0] == "iinf")
    exif_id = None
    for kind, i0, ih, isize in boxes(data, iinf[1] + iinf[2] + 6, iinf[1] + iinf[3]):  # v0: 2-byte count
        if kind == "infe" and data[i0 + ih] >= 2 and data[i0 + ih + 8:i0 + ih + 12] == b"Exif":
            exif_id = struct.unpack(">H", data[i0 + ih + 4:i0 + ih + 6])[0]
    iloc = next(b for b in children if b[0] == "iloc")
    body = data[iloc[1] + iloc[2]:iloc[1] + iloc[3]]
    assert exif_id is not None and body[0] == 0 and body[4] == 0x44 and body[5] >> 4 == 4, "iloc version 0, 4-byte fields"
    extra = 31
    grow = 8 * extra
    free_start = len(data) + grow  # where the appended box starts in the new file
    count = struct.unpack(">H", body[6:8])[0]
    out, p = bytearray(body[:8]), 8
    for _ in range(count):
        item, ref, base, extents = struct.unpack(">HHIH", body[p:p + 10])
        spans = body[p + 10:p + 10 + 8 * extents]
        p += 10 + 8 * extents
        base = base + grow if base else base
        if item == exif_id:
            spans += struct.pack(">II", free_start - base, padding) * extra
            extents += extra
        out += struct.pack(">HHIH", item, ref, base, extents) + spans
    new_meta = bytearray(data[m0:m0 + mh + 4])
    for child in children:
        new_meta += box("iloc", bytes(out)) if child[0] == "iloc" else data[child[1]:child[1] + child[3]]
    new_meta[0:4] = struct.pack(">I", len(new_meta))
    assert len(new_meta) - msize == grow
    target.write_bytes(data[:m0] + bytes(new_meta) + data[m0 + msize:] + box("free", bytes(padding - 8)))


def heifs():
    import shutil
    import subprocess
    import tempfile
    work = Path(tempfile.mkdtemp())
    gradient("RGB", (48, 32)).save(work / "source.jpg", quality=90, exif=exif(1, "2022:08:09 10:11:12"))
    gradient("RGB", (64, 40)).save(work / "large.png")
    for extension, flags in (("heic", []), ("avif", ["-A"])):
        subprocess.run(["heif-enc", "-q", "60", *flags, "-o", str(HERE / f"plain.{extension}"), str(work / "source.jpg")], check=True,
                       stdout=subprocess.DEVNULL)
        for angle in (1, 2, 3):  # irot: 90 degrees counterclockwise times angle
            add_transforms(HERE / f"plain.{extension}", HERE / f"irot{angle * 90}.{extension}", [box("irot", bytes([angle]))])
        add_transforms(HERE / f"plain.{extension}", HERE / f"imir.{extension}", [box("imir", bytes([1]))])
        add_transforms(HERE / f"plain.{extension}", HERE / f"irot90-imir.{extension}",
                       [box("irot", bytes([1])), box("imir", bytes([0]))])
    # An Exif item of 300 KiB and more (as with a large preview in it): the date is still read.
    lengthen_exif(HERE / "plain.avif", HERE / "long-exif.avif")
    # A thumbnail item beside the primary one: the primary's size counts.
    subprocess.run(["heif-enc", "-q", "60", "-t", "16", "-o", str(HERE / "thumbnail-item.heic"), str(work / "large.png")], check=True,
                   stdout=subprocess.DEVNULL)
    shutil.rmtree(work)


if __name__ == "__main__":
    jpegs()
    pngs()
    webps()
    gifs()
    heifs()
    for path in sorted(HERE.glob("*.webp")) + sorted(HERE.glob("*.gif")):
        with Image.open(path) as img:
            img.load()
            print(f"{path.name}: {img.format} {img.mode} {img.size} {getattr(img, 'n_frames', 1)} frames {path.stat().st_size} bytes")
    for path in sorted(HERE.glob("*.heic")) + sorted(HERE.glob("*.avif")):
        print(f"{path.name}: {path.stat().st_size} bytes")
    for path in sorted(HERE.glob("*.jpg")) + sorted(HERE.glob("*.png")):
        with Image.open(path) as img:
            img.load()
            print(f"{path.name}: {img.format} {img.mode} {img.size} {path.stat().st_size} bytes")
