#!/usr/bin/env bash
# Issue #19, point 7: `catalog import` into PostgreSQL (COPY into a temporary table, then one
# INSERT ... ON CONFLICT) next to psql's \copy of the same CSV into a bare table, on a throwaway
# server started here (initdb into a temporary folder, Unix socket only, as `postgres` when
# root; durability settings left at their defaults), and the import's peak resident memory.
#   Benchmarks/scripts/postgres-import.sh [LINES]     (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${1:-1000000}"
root="$(cd .. && pwd)"
catalog="$root/.build/release/catalog"
(cd "$root" && swift build -c release --product catalog > /dev/null)
work="${BENCH_WORK:-/tmp/catalog-bench}"
mkdir -p "$work"
csv="$work/import-$lines.csv"
[ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$lines"

bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)
server="$(mktemp -d /tmp/catalog-pg-bench-XXXXXX)"
chmod 755 "$server"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$server"
port=$((20000 + RANDOM % 30000))
"${as_postgres[@]}" "$bin/initdb" -D "$server/data" -U postgres --auth=trust -E UTF8 --no-locale > /dev/null
"${as_postgres[@]}" "$bin/pg_ctl" -D "$server/data" -l "$server/log" -w start \
    -o "-k $server -c listen_addresses='' -p $port -c max_wal_size=4GB" > /dev/null
trap '"${as_postgres[@]}" "$bin/pg_ctl" -D "$server/data" -m fast -w stop > /dev/null; rm -rf "$server"' EXIT
psql=(psql -X -q -h "$server" -p "$port" -U postgres)
url="postgres://postgres@/catalog?host=$server&port=$port"
bare="CREATE TABLE pins (key text, width int, height int, orientation int, date text, url text, title text)"

echo "## import of $lines CSV lines into PostgreSQL, next to psql's \\copy into a bare table"
python3 scripts/timing.py 3 \
    "--setup=${psql[*]} -c 'DROP DATABASE IF EXISTS catalog' -c 'CREATE DATABASE catalog' && $catalog stats --db '$url' > /dev/null" \
    "catalog-import-postgres=$catalog import --db '$url' $csv" \
    "--setup=${psql[*]} -c 'DROP DATABASE IF EXISTS bare' -c 'CREATE DATABASE bare' && ${psql[*]} -d bare -c '$bare'" \
    "psql-copy=${psql[*]} -d bare -c '\\copy pins FROM $csv CSV HEADER'"

echo "## peak resident memory of the import"
"${psql[@]}" -c 'DROP DATABASE IF EXISTS catalog' -c 'CREATE DATABASE catalog'
/usr/bin/time -v "$catalog" import --db "$url" "$csv" 2>&1 | grep -E "Maximum resident|Elapsed|^added"
