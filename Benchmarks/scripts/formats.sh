#!/usr/bin/env bash
# Issue #15's benchmark: files per second reading the size of 5,000 files of each new format
# (WebP, GIF, HEIC, AVIF), ours (ProbeBenchmark: ImageProbe on all cores) against imagesize.get
# and Pillow's Image.open().size (pillow-heif for HEIC) on the same files in the same run, each
# on all cores; then every file's size, ours against imagesize's.
#   Benchmarks/scripts/formats.sh [COUNT]   (default 5000 files a format; kept in .corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5000}
corpus=".corpus/formats-$count"
../scripts/install-deps
python3 -c "import imagesize, pillow_heif" 2>/dev/null || ../scripts/pip-install imagesize==2.0.1 pillow-heif==1.8.1
if [ ! -f "$corpus/.done" ]; then
    rm -rf "$corpus"
    python3 scripts/make_formats.py "$corpus" "$count"
    touch "$corpus/.done"
fi
swift build -c release --product ProbeBenchmark >&2
(cd .. && swift build -c release --product catalog >&2)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for kind in webp gif heic avif; do
    find "$PWD/$corpus/$kind" -type f | sort > "$corpus/$kind.list"
    echo "## $kind ($count files, $(du -sh "$corpus/$kind" | cut -f1))"
    echo -e "name\tfiles/s\tok\truns"
    .build/release/ProbeBenchmark "$corpus/$kind.list" 7
    python3 scripts/peers.py "$corpus/$kind.list" 3
    xargs -a "$corpus/$kind.list" ../.build/release/catalog probe > "$corpus/$kind.ours" 2>&1 || true
    python3 scripts/agree.py "$corpus/$kind.list" "$corpus/$kind.ours"
done
