#!/usr/bin/env bash
# Issues #3 and #16: catalog scan and import, next to imagesize (one process and one per core),
# the probe alone, find's stat floor, a bare read of the same files with a cold page cache
# (when root may drop it), and the sqlite3 shell's .import; then a streamed import of
# BIG_LINES (default 10,000,000) lines under /usr/bin/time -v for its peak memory.
#   Benchmarks/scripts/scan.sh [FILES] [IMPORT_LINES] [BIG_LINES]   (BIG_LINES=0 skips it)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
lines=${2:-1000000}
big=${3:-10000000}
corpus="$PWD/.corpus/scan-$count"
work="$PWD/.corpus/work"
mkdir -p "$work"

../scripts/install-deps
for tool in sqlite3 time; do
    [ -x "/usr/bin/$tool" ] || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq "$tool" || sudo apt-get install -y -qq "$tool"; }
done
python3 -c "import PIL, imagesize" 2>/dev/null || ../scripts/pip-install pillow imagesize
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
python3 scripts/peers.py "$corpus.list" 1 | grep imagesize | sed 's/^imagesize/imagesize-per-core/'
python3 - "$corpus.list" <<'PY'
import imagesize, sys, time
paths = [p for p in open(sys.argv[1]).read().split("\n") if p]
for p in paths[:1000]: imagesize.get(p)
rates = []
for _ in range(3):
    start = time.perf_counter()
    for p in paths: imagesize.get(p)
    rates.append(len(paths) / (time.perf_counter() - start))
print(f"imagesize-1-process\t{sorted(rates)[1]:.0f}")
PY

if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
    echo "## cold page cache (dropped before each run): first scan, next to a bare read of each file's first 16 KiB"
    cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
    for run in 1 2 3; do
        rm -f "$work"/scan.sqlite*; cold
        /usr/bin/time -f "cold-first-scan\t%e s" "$catalog" scan --db "$work/scan.sqlite" "$corpus" >/dev/null
        for readers in 2 16; do cold; python3 scripts/cold_read.py "$corpus.list" $readers; done
    done
else
    echo "## cold page cache: skipped (needs root and a writable /proc/sys/vm/drop_caches)"
fi

echo "## import of $lines CSV lines, next to the sqlite3 shell's .import into a bare table"
csv="$work/import-$lines.csv"
[ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$lines"
python3 scripts/timing.py 3 --setup="rm -f $work/import.sqlite* $work/bare.sqlite" \
    "catalog-import=$catalog import --db $work/import.sqlite $csv" \
    "sqlite3-import=sqlite3 $work/bare.sqlite '.import --csv $csv pins'"

if [ "$big" -gt 0 ]; then
    echo "## streamed import of $big lines: wall time and peak resident memory"
    bigcsv="$work/import-$big.csv"
    [ -f "$bigcsv" ] || python3 scripts/make_import.py "$bigcsv" "$big"
    rm -f "$work"/import-big.sqlite*
    /usr/bin/time -v "$catalog" import --db "$work/import-big.sqlite" "$bigcsv" 2>&1 \
        | grep -E "^added|Elapsed \(wall|Maximum resident" | sed 's/^\t//'
    rm -f "$work"/import-big.sqlite* "$work/bare-big.sqlite"
    /usr/bin/time -f "sqlite3-import-$big\t%e s" sqlite3 "$work/bare-big.sqlite" ".import --csv $bigcsv pins"
    rm -f "$work/bare-big.sqlite"
fi
