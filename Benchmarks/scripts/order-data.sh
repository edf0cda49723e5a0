#!/usr/bin/env bash
# Issue #8's benchmark: layouts of new configurations from order data, scroll-to-item, and what
# keeping the order data costs the write path, against the last build without it, in one run.
#   Benchmarks/scripts/order-data.sh [SIZES...]   (default: 100000 1000000 10000000 imported items)
#   BEFORE=REV: the build to compare the write path with (default ba4b8ca, the last without order data)
#   FILES=N: files of the scan corpus (default 100000; 0 skips the scan comparison)
#   REUSE=1: keep a catalog .corpus/work/order-N.sqlite that exists (no import comparison at N);
#            a 10M import takes minutes, and a catalog of an older schema migrates when opened
#            (importing one row then builds its order data)
# Whole-process wall times (timing.py: median, min, max), release builds.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${BEFORE:-ba4b8ca}
files=${FILES:-100000}
work="$PWD/.corpus/work"
corpus="$PWD/.corpus/scan-$files"
mkdir -p "$work"

../scripts/install-deps
source scripts/release-builds.sh
release_builds "$rev"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "before: $(git rev-parse --short "$rev") (no order data); after: the working tree"

# The id at position N of the date order.
id_at() { sqlite3 "$1" "SELECT id FROM items ORDER BY sort_date DESC, key LIMIT 1 OFFSET $2"; }

for size in ${@:-100000 1000000 10000000}; do
    csv="$work/import-$size.csv"
    db="$work/order-$size.sqlite"
    plain="$work/order-before-$size.sqlite"
    [ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$size"
    runs=3
    [ "$size" -ge 10000000 ] && runs=1
    echo "## $size imported items"
    if [ "${REUSE:-0}" = 1 ] && [ -f "$db" ]; then
        echo "# reusing $db ($(sqlite3 "$db" 'SELECT count(*) FROM items') items)"
    else
        echo "# import into a fresh catalog: before (no order data) and after"
        python3 scripts/timing.py "$runs" --interleave --setup="rm -f $db $db-wal $db-shm $plain $plain-wal $plain-shm" \
            "before-import=$before import --db $plain $csv" "after-import=$after import --db $db $csv"
        rm -f "$plain" "$plain-wal" "$plain-shm"
    fi
    sqlite3 "$db" "SELECT 'order data: ' || sum(length(entries)) || ' bytes in ' || count(*) || ' chunks' FROM order_chunks"

    echo "# what computing and storing each layout takes (catalog layout), the stored bytes per item"
    for config in "360 2" "414 3" "1280 5"; do
        set -- $config
        "$after" layouts --db "$db" --drop > /dev/null
        "$after" layout --db "$db" --width "$1" --cols "$2" | tail -1
    done
    echo "# the first page of a configuration never seen (compute from order data, store), and a stored page"
    for config in "360 2" "414 3" "1280 5"; do
        set -- $config
        python3 scripts/timing.py 5 --setup="$after layouts --db $db --drop" \
            "first-page-$1px-$2cols=$after page --db $db --width $1 --cols $2 --json"
    done
    "$after" layouts --db "$db" --drop > /dev/null
    "$after" page --db "$db" --width 375 --cols 2 > /dev/null # stores the layout
    "$after" layouts --db "$db" | head -1 | cut -f1,4
    python3 scripts/timing.py 21 \
        "stored-page=$after page --db $db --width 375 --cols 2 --offset 4000 --json" \
        "item-first=$after page --db $db --width 375 --cols 2 --item $(id_at "$db" 0) --json" \
        "item-middle=$after page --db $db --width 375 --cols 2 --item $(id_at "$db" $((size / 2))) --json" \
        "item-last=$after page --db $db --width 375 --cols 2 --item $(id_at "$db" $((size - 1))) --json"
done

[ "$files" -gt 0 ] || exit 0
if [ ! -f "$corpus/.done" ]; then
    echo "writing $files files to $corpus" >&2
    rm -rf "$corpus" "$corpus.pool"
    python3 -c "import PIL" 2>/dev/null || ../scripts/pip-install pillow
    python3 scripts/make_corpus.py "$corpus" "$files" 2000
    touch "$corpus/.done"
fi
scan_before="$work/order-scan-before.sqlite"
scan_after="$work/order-scan-after.sqlite"
echo "## first scan of $files files (fresh catalog each run), then the unchanged rescan"
python3 scripts/timing.py 3 --interleave --setup="rm -f $scan_before* $scan_after*" \
    "before-first-scan=$before scan --db $scan_before $corpus" "after-first-scan=$after scan --db $scan_after $corpus"
python3 scripts/timing.py 5 --interleave \
    "before-rescan=$before scan --db $scan_before $corpus" "after-rescan=$after scan --db $scan_after $corpus"
