#!/usr/bin/env bash
# Importing an unchanged export again into a catalog on PostgreSQL, with builds taking turns:
#   Benchmarks/scripts/postgres-reimport.sh LINES RUNS NAME=BINARY...
# e.g., from the repository's root:
#   Benchmarks/scripts/postgres-reimport.sh 1000000 3 before=/tmp/catalog-4f4b0e3 now=.build/release/catalog
# On a throwaway server (postgres-server.sh), each build imports the generated CSV
# (make_import.py) into a database of its own once (its own migrations), then every timed run
# imports the same file into it again. Every build's `items` table is vacuumed before each run
# (untimed), so that the dead rows of the runs before do not weigh on the next. Median, min and max of RUNS
# whole-process wall times (timing.py --interleave).
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
source scripts/postgres-server.sh
start_postgres
q() { printf '%q' "$1"; } # the commands below go through a shell again (timing.py)
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
