#!/usr/bin/env bash
# Issue #10's benchmark: 256-pixel thumbnails per second on all cores, ours against
# vipsthumbnail (libvips, the same shrink-on-load), Pillow (draft() + thumbnail()) and
# ImageMagick (-thumbnail), on the same files in the same run; then the PSNR of ours against
# Pillow's LANCZOS reduction of the fully decoded image.
#   Benchmarks/scripts/thumbnails.sh [COUNT] [LARGE]
#   COUNT: files of the probe benchmark's corpus (default 20000); LARGE: 12-megapixel JPEGs (default 24)
# Every tool rotates by EXIF orientation and writes JPEG quality 80 (PNG where it keeps alpha),
# one process or thread per core, each limited to one thread inside. Wall times: median, min,
# max of 3 runs after a warm-up run; each run starts from an empty output folder.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20000}
large=${2:-24}
jobs=$(nproc)

../scripts/install-deps
missing=()
for package in libvips-tools imagemagick; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
python3 -c "import PIL" 2>/dev/null || ../scripts/pip-install pillow
# The real ImageMagick: a stand-in earlier on PATH must not answer for it.
mogrify=/usr/bin/mogrify

corpus=".corpus/probe-$count"
if [ ! -f "$corpus/.done" ]; then
    echo "writing $count files to $corpus" >&2
    rm -rf "$corpus"
    python3 scripts/make_corpus.py "$corpus" "$count"
    touch "$corpus/.done"
fi
find "$PWD/$corpus" -type f \( -name '*.jpg' -o -name '*.png' \) | sort > "$corpus.list"
big=".corpus/large-$large"
if [ ! -f "$big/.done" ]; then
    echo "writing $large 12-megapixel JPEGs to $big" >&2
    python3 scripts/make_large.py "$big" "$large"
    touch "$big/.done"
fi
find "$PWD/$big" -type f -name '*.jpg' | sort > "$big.list"

swift build -c release --product ThumbnailBenchmark >&2
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $jobs cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "peers: $(vipsthumbnail --vips-version), $($mogrify --version | head -1 | cut -d' ' -f2-3), Pillow $(python3 -c 'import PIL; print(PIL.__version__)')"

for set in "$corpus" "$big"; do
    list="$PWD/$set.list"
    files=$(wc -l < "$list")
    echo "## $set: $files files"
    "$catalog" scan --db "$out/catalog.sqlite" "$PWD/$set" > /dev/null
    fresh() { echo "--setup=rm -rf $out/$1 && mkdir -p $out/$1"; }
    python3 scripts/timing.py 3 \
        "$(fresh ours)" "ours=.build/release/ThumbnailBenchmark $list $out/ours $jobs 256" \
        "$(fresh cache)" "catalog-thumbnails=$catalog thumbnails --db $out/catalog.sqlite --cache $out/cache --size 256" \
        "$(fresh vips)" "vipsthumbnail=VIPS_CONCURRENCY=1 xargs -a $list -P $jobs -n 50 vipsthumbnail --size 256 -o '$out/vips/%s.jpg[Q=80]'" \
        "$(fresh pillow)" "pillow=python3 scripts/thumbnail_peers.py pillow $list $out/pillow $jobs" \
        "$(fresh magick)" "imagemagick=MAGICK_THREAD_LIMIT=1 xargs -a $list -P $jobs -n 50 $mogrify -path $out/magick -auto-orient -thumbnail 256x256 -quality 80 -format jpg"
    for tool in ours cache vips pillow magick; do
        echo "outputs	$tool	$(find "$out/$tool" -type f ! -name '.tmp-*' | wc -l)"
    done
    python3 scripts/thumbnail_peers.py psnr "$list" "$out/ours" 200
    rm -f "$out/catalog.sqlite"*
done
