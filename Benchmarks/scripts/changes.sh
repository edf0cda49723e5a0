#!/usr/bin/env bash
# Issue #14's whole-system benchmark, release builds, in one run:
#   1. the change log's cost: the build before it (REV, default d3c6120) against the working
#      tree, interleaved: a first import of ITEMS rows, a first scan of the probe corpus
#      (20,000 files), and an import that changes the size and date of every row (the log's
#      worst case: one row logged per item);
#   2. `catalog changes --since` at ITEMS imported items after an import that changed 0.1 %,
#      1 % and 10 % of them (half of them new rows, half new sizes and dates);
#   3. watch latency: from the last file written under `catalog serve --scan` to its generation
#      event on /api/events (scripts/event_latency.py).
#   Benchmarks/scripts/changes.sh [REV] [ITEMS]   (default d3c6120 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-d3c6120}
items=${2:-1000000}
work="$PWD/.corpus/work"
mkdir -p "$work"
../scripts/install-deps
source scripts/release-builds.sh
release_builds "$rev"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "before: $(git rev-parse --short "$rev") (no change log); after: the working tree"
csv="$work/import-$items.csv"
[ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$items"
corpus="$PWD/.corpus/probe-20000"
[ -d "$corpus" ] || python3 scripts/make_corpus.py "$corpus" 20000 >&2
# Every row again with another size and date: every item updated and most of them moved.
changed="$work/import-$items-changed.csv"
[ -f "$changed" ] || python3 - "$csv" "$changed" <<'PY'
import sys
with open(sys.argv[1]) as source, open(sys.argv[2], "w") as out:
    out.write(source.readline())
    for line in source:
        key, width, height, orientation, date, url, title = line.rstrip("\n").split(",", 6)
        out.write(f"{key},{int(height)},{int(width) + 1},{orientation},2009{date[4:]},{url},{title}\n")
PY

echo "## 1. the change log's cost (median, min, max of 3, interleaved)"
python3 scripts/timing.py 3 --interleave --setup="rm -f $work/cost.sqlite*" \
    "before-first-import=$before import --db $work/cost.sqlite $csv" "after-first-import=$after import --db $work/cost.sqlite $csv"
python3 scripts/timing.py 3 --interleave --setup="rm -f $work/cost.sqlite*" \
    "before-first-scan=$before scan --db $work/cost.sqlite $corpus" "after-first-scan=$after scan --db $work/cost.sqlite $corpus"
for build in before after; do
    binary=$before; [ $build = after ] && binary=$after
    rm -f "$work/changed-$build.sqlite"*
    "$binary" import --db "$work/changed-$build.sqlite" "$csv" > /dev/null
    cp "$work/changed-$build.sqlite" "$work/changed-$build.base"
done
python3 scripts/timing.py 3 --interleave \
    --setup="cp $work/changed-before.base $work/changed-before.sqlite && cp $work/changed-after.base $work/changed-after.sqlite && rm -f $work/changed-*.sqlite-wal $work/changed-*.sqlite-shm" \
    "before-import-changing-every-row=$before import --db $work/changed-before.sqlite $changed" \
    "after-import-changing-every-row=$after import --db $work/changed-after.sqlite $changed"

echo "## 2. catalog changes at $items items (median, min, max of 5)"
for percent in 0.1 1 10; do
    db="$work/changes-$percent.sqlite"
    rm -f "$db"*
    cp "$work/changed-after.base" "$db"
    since=$("$after" stats --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['generation'])")
    python3 - "$csv" "$work/changes-$percent.csv" "$percent" "$items" <<'PY'
import random, sys
source, target, percent, items = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
r = random.Random(3)
changes = int(items * percent / 100)
with open(source) as f:
    header = f.readline()
    lines = f.readlines()
with open(target, "w") as out:
    out.write(header)
    for line in r.sample(lines, changes // 2):  # new size and date: updated, most of them moved
        key, width, height, orientation, date, url, title = line.rstrip("\n").split(",", 6)
        out.write(f"{key},{int(width) + 7},{height},{orientation},20{r.randint(10, 25)}{date[4:]},{url},{title}\n")
    for i in range(changes - changes // 2):  # new rows
        out.write(f"new-{i:08},{r.randint(200, 4000)},{r.randint(200, 4000)},1,20{r.randint(10, 25)}-06-15T12:00:00Z,,\n")
PY
    "$after" import --db "$db" "$work/changes-$percent.csv" > /dev/null
    echo "$percent % changed: $("$after" changes --db "$db" --since "$since" | head -1)"
    python3 scripts/timing.py 5 "changes-date-$percent=$after changes --db $db --since $since --json" \
        "changes-path-$percent=$after changes --db $db --since $since --sort path --json" \
        "floor-list-1=$after list --db $db --limit 1 --json"
done

echo "## 3. watch latency: last file written -> generation event (catalog serve --scan)"
python3 scripts/event_latency.py "$after" "$work/watch" 20
