#!/usr/bin/env bash
# Importing an export again into the catalog it filled, with builds taking turns:
#   Benchmarks/scripts/reimport.sh [--postgres] LINES RUNS NAME=BINARY...
# e.g., from the repository's root:
#   Benchmarks/scripts/reimport.sh 1000000 3 before=/tmp/catalog-1aae020 now=.build/release/catalog
# SQLite: the first binary imports the generated CSV (make_import.py) into a fresh catalog once;
# every timed run imports into a copy of it (untimed) one of: the same file (no row changes), the
# file with the dates of one line in ten moved, the file with every date moved.
# --postgres: on a throwaway server (postgres-server.sh), each build imports the CSV into a
# database of its own once (its own migrations), then every timed run imports the same file into
# it again; every build's `items` table is vacuumed before each run (untimed), so that the dead
# rows of the runs before do not weigh on the next.
# Median, min and max of RUNS whole-process wall times (timing.py --interleave).
set -euo pipefail
postgres=false
if [ "${1:-}" = --postgres ]; then
    postgres=true
    shift
fi
if [ $# -lt 3 ]; then
    echo "usage: $0 [--postgres] LINES RUNS NAME=BINARY..." >&2
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
q() { printf '%q' "$1"; } # the commands below go through a shell again (timing.py)

if $postgres; then
    source scripts/postgres-server.sh
    start_postgres
    setup=""
    commands=()
    for index in "${!specs[@]}"; do
        name=${specs[$index]%%=*} binary=${specs[$index]#*=}
        "${psql[@]}" -c "CREATE DATABASE reimport_$index"
        "$binary" import --db "$(pg_url "reimport_$index")" "$csv" > /dev/null
        setup+="$(printf '%q ' "${psql[@]}")-d reimport_$index -c 'VACUUM items'; "
        commands+=("$name=$(q "$binary") import --db $(q "$(pg_url "reimport_$index")") $(q "$csv")")
    done
    echo "== $(basename "$csv") imported again into the catalog it filled, on $("$pg_bin/postgres" --version)"
    python3 scripts/timing.py "$runs" --interleave "--setup=$setup" "${commands[@]}"
    exit 0
fi

# make_import.py writes whole hours (`T15:00:00Z`): a moved date is the same hour at :30 or :45.
sed 's/T\([0-9][0-9]\):00:00Z/T\1:30:00Z/' "$csv" > "$work/reimport-all-dates.csv"
awk 'NR > 1 && NR % 10 == 0 { sub(/:00:00Z/, ":45:00Z") } { print }' "$csv" > "$work/reimport-tenth-dates.csv"
base="$work/reimport-base.sqlite"
trap 'rm -f "$base"* "$work"/reimport.sqlite* "$work/reimport-all-dates.csv" "$work/reimport-tenth-dates.csv"' EXIT
rm -f "$base"*
"${specs[0]#*=}" import --db "$base" "$csv" > /dev/null
setup="rm -f $(q "$work")/reimport.sqlite*; cp $(q "$base") $(q "$work/reimport.sqlite")"
for input in "$csv" "$work/reimport-tenth-dates.csv" "$work/reimport-all-dates.csv"; do
    echo "== $(basename "$input") into the catalog of $(basename "$csv")"
    commands=()
    for spec in "${specs[@]}"; do
        commands+=("${spec%%=*}=$(q "${spec#*=}") import --db $(q "$work/reimport.sqlite") $(q "$input")")
    done
    python3 scripts/timing.py "$runs" --interleave "--setup=$setup" "${commands[@]}"
done
