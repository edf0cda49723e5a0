#!/usr/bin/env bash
# Issue #5's benchmark: catalog page with a stored layout, next to the same binary's floor.
#   Benchmarks/scripts/page.sh [SIZES...]   (default: 1000000 10000000 imported items)
set -euo pipefail
cd "$(dirname "$0")/.."
work="$PWD/.corpus/work"
mkdir -p "$work"
../scripts/install-deps
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for n in "${@:-1000000 10000000}"; do
    for size in $n; do
        db="$work/page-$size.sqlite"
        csv="$work/import-$size.csv"
        [ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$size"
        echo "## $size imported items"
        if [ ! -f "$db.done" ]; then
            rm -f "$db" "$db-wal" "$db-shm"
            start=$EPOCHREALTIME
            "$catalog" import --db "$db" "$csv" > /dev/null
            echo "import	$(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s"
            touch "$db.done"
        fi
        "$catalog" layouts --db "$db" --drop > /dev/null
        start=$EPOCHREALTIME
        height=$("$catalog" page --db "$db" --width 375 --cols 2 --json | python3 -c "import json,sys; print(json.load(sys.stdin)['contentHeight'])")
        echo "first-page	$(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s (compute + store a new configuration)"
        "$catalog" layouts --db "$db" --json | python3 -c "
import json, sys
for line in sys.stdin:
    l = json.loads(line)
    print(f\"stored	{l['bytes']} bytes, {l['bytes'] / l['items']:.2f} bytes per item, {l['items']} items\")"
        middle=$(python3 -c "print(int($height / 2))")
        end=$(python3 -c "print(int($height - 812))")
        python3 scripts/timing.py 21 \
            "floor=$catalog list --db $db --limit 1 --sort path --json" \
            "page-top=$catalog page --db $db --width 375 --cols 2 --offset 0 --json" \
            "page-4000=$catalog page --db $db --width 375 --cols 2 --offset 4000 --json" \
            "page-middle=$catalog page --db $db --width 375 --cols 2 --offset $middle --json" \
            "page-end=$catalog page --db $db --width 375 --cols 2 --offset $end --json"
    done
done
