#!/usr/bin/env bash
# Issue #11's benchmark: the gallery in headless Chromium on catalogs of 1,000,000 and
# 10,000,000 imported items plus 40 scanned photos (the newest: the first screen), release
# build, thumbnails made beforehand by `catalog thumbnails`.
#   Benchmarks/scripts/gallery.sh [SIZE...]     (default 1000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
sizes=("${@:-1000000 10000000}")
read -r -a sizes <<< "${sizes[*]}"

../scripts/install-deps
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
work="$PWD/.corpus/work"
photos="$work/gallery-photos"
if [ ! -d "$photos" ]; then
    python3 -c "import sys; sys.path.insert(0, '../Tests/GalleryTests'); from pathlib import Path; from conftest import write_photos; write_photos(Path('$photos'), 40)"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(chromium --version 2>/dev/null)"
for size in "${sizes[@]}"; do
    db=$(imported_catalog "$catalog" "$size" gallery)
    "$catalog" scan --db "$db" "$photos" > /dev/null
    "$catalog" thumbnails --db "$db" --cache "$work/gallery-thumbnails" --missing-only > /dev/null
    "$catalog" layouts --db "$db" --drop > /dev/null
    start_server "$catalog" --quiet --db "$db" --thumbnail-cache "$work/gallery-thumbnails"
    echo "## $size imported items + 40 photos"
    python3 scripts/gallery_bench.py "$url" 1 first
    python3 scripts/gallery_bench.py "$url" 5
    kill "$server"; wait "$server" || true
done
