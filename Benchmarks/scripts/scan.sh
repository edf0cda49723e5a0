#!/usr/bin/env bash
# Issue #3's benchmark: catalog scan and import, next to imagesize, the probe alone, find's
# stat floor and the sqlite3 shell's .import.
#   Benchmarks/scripts/scan.sh [FILES] [IMPORT_LINES]   (default 100000 files, 1000000 lines)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
lines=${2:-1000000}
corpus="$PWD/.corpus/scan-$count"
work="$PWD/.corpus/work"
mkdir -p "$work"

../scripts/install-deps
command -v sqlite3 >/dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq sqlite3 || sudo apt-get install -y -qq sqlite3; }
python3 -c "import PIL, imagesize" 2>/dev/null || pip install --quiet pillow imagesize
if [ ! -f "$corpus/.done" ]; then
    echo "writing $count files to $corpus" >&2
    rm -rf "$corpus" "$corpus.pool"
    python3 scripts/make_corpus.py "$corpus" "$count" 2000
    touch "$corpus/.done"
fi
find "$corpus" -type f \( -name '*.jpg' -o -name '*.png' \) | sort > "$corpus.list"
(cd .. && swift build -c release --product catalog >&2)
swift build -c release --product ProbeBenchmark >&2
catalog="$(cd .. && pwd)/.build/release/catalog"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

echo "## first scan of $count files (walk + probe + store), fresh catalog each run"
python3 scripts/timing.py 3 --setup="rm -f $work/scan.sqlite*" "first-scan=$catalog scan --db $work/scan.sqlite $corpus"
echo "## rescan of the unchanged tree, next to find's stat floor"
python3 scripts/timing.py 5 "rescan=$catalog scan --db $work/scan.sqlite $corpus" \
    "find-stat=find $corpus -type f -printf '%s %T@\n'"
echo "## reading sizes alone, same files: the probe in-process, and python's imagesize"
.build/release/ProbeBenchmark "$corpus.list" 3 | grep -E "^(probe|floor)"
python3 scripts/peers.py "$corpus.list" 1 | grep imagesize

echo "## import of $lines CSV lines, next to the sqlite3 shell's .import into a bare table"
csv="$work/import-$lines.csv"
[ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$lines"
python3 scripts/timing.py 3 --setup="rm -f $work/import.sqlite* $work/bare.sqlite" \
    "catalog-import=$catalog import --db $work/import.sqlite $csv" \
    "sqlite3-import=sqlite3 $work/bare.sqlite '.import --csv $csv pins'"
