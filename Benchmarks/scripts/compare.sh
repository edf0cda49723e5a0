#!/usr/bin/env bash
# The page and scan benchmarks of two builds side by side, in one run, so a refactor can show
# its figures stayed within noise: the working tree's release build against REV's.
#   Benchmarks/scripts/compare.sh REV [ITEMS] [FILES]   (default 1000000 imported items, 100000 files)
# Both binaries run interleaved over the same catalogs and files (each reads a catalog the
# other wrote: the schema is the same); medians of 21 runs (pages), 5 (rescans), 3 (the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: compare.sh REV [ITEMS] [FILES]}
items=${2:-1000000}
files=${3:-100000}
work="$PWD/.corpus/work"
corpus="$PWD/.corpus/scan-$files"
mkdir -p "$work"

../scripts/install-deps
python3 -c "import PIL" 2>/dev/null || ../scripts/pip-install pillow
source scripts/release-builds.sh
release_builds "$rev"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "before: $(git rev-parse --short "$rev"); after: the working tree"

source scripts/imported-catalog.sh
db=$(imported_catalog "$after" "$items" compare)
echo "## $items imported items: a page of a stored layout (375 points, 2 columns)"
"$after" page --db "$db" --width 375 --cols 2 > /dev/null # stores the layout
height=$("$after" page --db "$db" --width 375 --cols 2 --json | python3 -c "import json,sys; print(json.load(sys.stdin)['contentHeight'])")
middle=$(python3 -c "print(int($height / 2))")
python3 scripts/timing.py 21 --interleave \
    "before-floor=$before list --db $db --limit 1 --sort path --json" "after-floor=$after list --db $db --limit 1 --sort path --json" \
    "before-page-top=$before page --db $db --width 375 --cols 2 --offset 0 --json" \
    "after-page-top=$after page --db $db --width 375 --cols 2 --offset 0 --json" \
    "before-page-middle=$before page --db $db --width 375 --cols 2 --offset $middle --json" \
    "after-page-middle=$after page --db $db --width 375 --cols 2 --offset $middle --json"
echo "## the first page of a configuration not stored (compute + store), 414 points, 3 columns"
python3 scripts/timing.py 3 --interleave --setup="$after layouts --db $db --drop" \
    "before-first-page=$before page --db $db --width 414 --cols 3 --json" "after-first-page=$after page --db $db --width 414 --cols 3 --json"

if [ ! -f "$corpus/.done" ]; then
    echo "writing $files files to $corpus" >&2
    rm -rf "$corpus" "$corpus.pool"
    python3 scripts/make_corpus.py "$corpus" "$files" 2000
    touch "$corpus/.done"
fi
echo "## first scan of $files files, fresh catalog each run; then the unchanged rescan"
python3 scripts/timing.py 3 --interleave --setup="rm -f $work/compare-scan.sqlite*" \
    "before-first-scan=$before scan --db $work/compare-scan.sqlite $corpus" "after-first-scan=$after scan --db $work/compare-scan.sqlite $corpus"
python3 scripts/timing.py 5 --interleave \
    "before-rescan=$before scan --db $work/compare-scan.sqlite $corpus" "after-rescan=$after scan --db $work/compare-scan.sqlite $corpus"
