#!/usr/bin/env bash
# Two builds of `catalog layout` taking turns on one catalog, each run after `catalog layouts
# --drop`: prints per run the build, wall seconds, and the "computed in" and "stored in" it
# reports, then the medians and what storing adds on top of the computation (BENCHMARKS.md,
# "A new layout stored while it is computed").
#   Benchmarks/scripts/layout-store-ab.sh OLD_BINARY NEW_BINARY CATALOG WIDTH COLUMNS [RUNS]
set -euo pipefail
old=$1 new=$2 db=$3 width=$4 cols=$5 runs=${6:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$old" layouts --db "$db" --drop >/dev/null
"$old" layout --db "$db" --width "$width" --cols "$cols" >/dev/null # the catalog's pages read in
for _ in $(seq 1 "$runs"); do
    for build in old new; do
        binary=$old; [ "$build" = new ] && binary=$new
        "$binary" layouts --db "$db" --drop >/dev/null
        start=$(date +%s.%N)
        line=$("$binary" layout --db "$db" --width "$width" --cols "$cols" | tail -1)
        end=$(date +%s.%N)
        computed=$(grep -o 'computed in [0-9.]*' <<<"$line" | awk '{print $3}')
        stored=$(grep -o 'stored in [0-9.]*' <<<"$line" | awk '{print $3}')
        echo "$build $(echo "$end - $start" | bc) $computed $stored" | tee -a "$out"
    done
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def median(build, column): return statistics.median(float(r[column]) for r in rows if r[0] == build)
wall, compute, store = median("old", 1), median("old", 2), median("old", 3)
besides = wall - compute - store # start, first snapshot, exit
added = median("new", 1) - besides - compute
print(f"old: wall {wall:.3f} s, computed {compute:.3f} s, stored {store:.3f} s: store / compute {store / compute:.2f}")
print(f"new: wall {median('new', 1):.3f} s (prints computed {median('new', 2):.3f} s, stored {median('new', 3):.3f} s): "
      f"{added:.3f} s on top of the computation alone, {added / compute:.2f} of it")
PY
