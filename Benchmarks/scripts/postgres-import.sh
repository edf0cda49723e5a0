#!/usr/bin/env bash
# Issue #19, point 7: `catalog import` into an empty PostgreSQL catalog (COPY straight into the
# items, then their indexes and order data) next to psql's \copy of the same CSV into a bare table, on a throwaway
# server started here (initdb into a temporary folder, Unix socket only, as `postgres` when
# root; durability settings left at their defaults), and the import's peak resident memory.
#   Benchmarks/scripts/postgres-import.sh [LINES] [RUNS]     (defaults: 1000000 lines, 3 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${1:-1000000}"
runs="${2:-3}"
root="$(cd .. && pwd)"
catalog="$root/.build/release/catalog"
(cd "$root" && swift build -c release --product catalog > /dev/null)
source scripts/postgres-server.sh
import_csv "$lines" # $csv, and $header: the catalog is made before each timed import by an import of no rows
start_postgres
url="$(pg_url catalog)"
bare="CREATE TABLE pins (key text, width int, height int, orientation int, date text, url text, title text)"

echo "## import of $lines CSV lines into PostgreSQL, next to psql's \\copy into a bare table"
python3 scripts/timing.py "$runs" \
    "--setup=${psql[*]} -c 'DROP DATABASE IF EXISTS catalog' -c 'CREATE DATABASE catalog' && $catalog import --db '$url' $header > /dev/null" \
    "catalog-import-postgres=$catalog import --db '$url' $csv" \
    "--setup=${psql[*]} -c 'DROP DATABASE IF EXISTS bare' -c 'CREATE DATABASE bare' && ${psql[*]} -d bare -c '$bare'" \
    "psql-copy=${psql[*]} -d bare -c '\\copy pins FROM $csv CSV HEADER'"

echo "## peak resident memory of the import"
"${psql[@]}" -c 'DROP DATABASE IF EXISTS catalog' -c 'CREATE DATABASE catalog'
/usr/bin/time -v "$catalog" import --db "$url" "$csv" 2>&1 | grep -E "Maximum resident|Elapsed|^added"
