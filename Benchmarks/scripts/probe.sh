#!/usr/bin/env bash
# Issue #2's benchmark: probe files/s next to imagesize, Pillow and the bare-read floor.
#   Benchmarks/scripts/probe.sh [COUNT]   (default 20000 files; corpus kept in Benchmarks/.corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20000}
corpus=".corpus/probe-$count"

../scripts/install-deps
python3 -c "import PIL, imagesize" 2>/dev/null || ../scripts/pip-install pillow imagesize
if [ ! -f "$corpus/.done" ]; then
    echo "writing $count files to $corpus" >&2
    rm -rf "$corpus"
    python3 scripts/make_corpus.py "$corpus" "$count"
    touch "$corpus/.done"
fi
find "$PWD/$corpus" -type f \( -name '*.jpg' -o -name '*.png' \) | sort > "$corpus.list"
swift build -c release --product ProbeBenchmark >&2
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo -e "name\tfiles/s\tok\truns"
.build/release/ProbeBenchmark "$corpus.list" 7
python3 scripts/peers.py "$corpus.list" 3
