#!/usr/bin/env bash
# Importing an export again into the catalog it filled, with builds taking turns:
#   Benchmarks/scripts/reimport.sh LINES RUNS NAME=BINARY...
# e.g., from the repository's root:
#   Benchmarks/scripts/reimport.sh 1000000 3 before=/tmp/catalog-1aae020 now=.build/release/catalog
# The first binary imports the generated CSV (make_import.py) into a fresh catalog once; every
# timed run imports into a copy of it (untimed) one of: the same file (no row changes), the file
# with the dates of one line in ten moved, the file with every date moved. Median, min and max of
# RUNS whole-process wall times (timing.py --interleave).
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 LINES RUNS NAME=BINARY..." >&2
    exit 2
fi
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
lines=$1 runs=$2
shift 2
specs=()
for spec in "$@"; do specs+=("${spec%%=*}=$(absolute "${spec#*=}")"); done
cd "$(dirname "$0")/.."
work="$PWD/.corpus/work"
mkdir -p "$work"
csv="$work/import-$lines.csv"
[ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$lines"
# make_import.py writes whole hours (`T15:00:00Z`): a moved date is the same hour at :30 or :45.
sed 's/T\([0-9][0-9]\):00:00Z/T\1:30:00Z/' "$csv" > "$work/reimport-all-dates.csv"
awk 'NR > 1 && NR % 10 == 0 { sub(/:00:00Z/, ":45:00Z") } { print }' "$csv" > "$work/reimport-tenth-dates.csv"
base="$work/reimport-base.sqlite"
trap 'rm -f "$base"* "$work"/reimport.sqlite* "$work/reimport-all-dates.csv" "$work/reimport-tenth-dates.csv"' EXIT
rm -f "$base"*
"${specs[0]#*=}" import --db "$base" "$csv" > /dev/null
q() { printf '%q' "$1"; } # the commands below go through a shell again (timing.py)
setup="rm -f $(q "$work")/reimport.sqlite*; cp $(q "$base") $(q "$work/reimport.sqlite")"
for input in "$csv" "$work/reimport-tenth-dates.csv" "$work/reimport-all-dates.csv"; do
    echo "== $(basename "$input") into the catalog of $(basename "$csv")"
    commands=()
    for spec in "${specs[@]}"; do
        commands+=("${spec%%=*}=$(q "${spec#*=}") import --db $(q "$work/reimport.sqlite") $(q "$input")")
    done
    python3 scripts/timing.py "$runs" --interleave "--setup=$setup" "${commands[@]}"
done
