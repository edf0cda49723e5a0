#!/usr/bin/env bash
# Issue #19, point 7: two builds' `catalog import` into an empty PostgreSQL catalog, taking
# turns with psql's \copy of the same CSV into a bare table, on one throwaway server started
# here (postgres-server.sh: initdb into a temporary folder, Unix socket only, default
# durability settings); a new database for each import, its catalog made first by an import of
# no rows, so that only the import of the rows is timed. Prints each run, then the medians.
#   Benchmarks/scripts/postgres-import-ab.sh BEFORE AFTER [LINES] [RUNS]   (1000000 lines, 5 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
before="$(realpath "$1")"
after="$(realpath "$2")"
lines="${3:-1000000}"
runs="${4:-5}"
source scripts/postgres-server.sh
import_csv "$lines"
start_postgres
bare="CREATE TABLE pins (key text, width int, height int, orientation int, date text, url text, title text)"

seconds() { python3 -c "print(round($EPOCHREALTIME - $1, 2))"; }
import_with() { # NAME BINARY
    "${psql[@]}" -c 'DROP DATABASE IF EXISTS ab' -c 'CREATE DATABASE ab' 2> /dev/null
    "$2" import --db "$(pg_url ab)" "$header" > /dev/null
    local start=$EPOCHREALTIME
    "$2" import --db "$(pg_url ab)" "$csv" > /dev/null
    echo "$1 $(seconds "$start")"
}
copy_bare() {
    "${psql[@]}" -c 'DROP DATABASE IF EXISTS bare' -c 'CREATE DATABASE bare' 2> /dev/null
    "${psql[@]}" -d bare -c "$bare"
    local start=$EPOCHREALTIME
    "${psql[@]}" -d bare -c "\\copy pins FROM $csv CSV HEADER"
    echo "psql-copy $(seconds "$start")"
}
for _ in $(seq "$runs"); do
    import_with before "$before"
    import_with after "$after"
    copy_bare
done | tee "$work/import-ab.txt"
python3 - "$work/import-ab.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    runs.setdefault(name, []).append(float(value))
for name, values in runs.items():
    print(f"{name}: median {statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f}) of {len(values)}")
PY
