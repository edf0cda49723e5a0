#!/usr/bin/env bash
# Issue #19: what clustering the items by date order (`catalog cluster`: PostgreSQL's CLUSTER
# items USING items_by_date, which rewrites the table in that order) does to pages read from PostgreSQL. A page's items are
# neighbours in the layout's order, so in a clustered table they lie on a few heap pages instead
# of one page each. One server on SQLite, one on the PostgreSQL catalog as imported, then on the
# same catalog clustered, taking turns with SQLite (the machine drifts); wrk on /api/page at random
# offsets new to each server, 16 and 64 connections, 10 s each after 10 s of 64 to warm up.
#   Benchmarks/scripts/postgres-cluster.sh [SIZE]     (default 10000000 imported items)
# Every PostgreSQL run comes between two SQLite runs; IMPORTED_ROUNDS=N measures the catalog as
# imported N times (default 1) before it is clustered.
# PG_SETTINGS="-c shared_buffers=6GB" starts the throwaway PostgreSQL with other settings, and
# PG_PREWARM=1 reads its tables into those buffers before each server (serving-catalogs.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
size="${1:-10000000}"
source scripts/serving-catalogs.sh

stored_pages
run=0 # each wrk run's seed: offsets new to the server

# measure NAME DB: a server on DB, its files read into the page cache first (read_in).
measure() {
    read_in "$2"
    start_server "$catalog" --quiet --db "$2"
    run=$((run + 1))
    wrk -t2 -c64 -d10s -s "$work/pages.lua" "$url" -- $run > /dev/null # the warm-up
    for c in 16 64; do
        run=$((run + 1))
        wrk -t2 -c$c -d10s --latency -s "$work/pages.lua" "$url" -- $run > "$work/wrk.out"
        awk -v name="$1" -v c="$c" '
            /Requests\/sec/ { rate = $2 }
            $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
            /Non-2xx/ { bad = "  (" $0 ")" }
            END { printf "%-24s %11d %12.0f %9s %9s%s\n", name, c, rate, p50, p99, bad }' "$work/wrk.out"
    done
    kill -TERM "$server"; wait "$server" || true
}

echo "## $size imported items, 375 points, 2 columns, stored layout, one server"
printf '%-24s %11s %12s %9s %9s\n' catalog connections requests/s p50 p99
measure SQLite "$sqlite"
for _ in $(seq "${IMPORTED_ROUNDS:-1}"); do
    measure PostgreSQL "$postgres"
    measure SQLite "$sqlite"
done
"$catalog" cluster --db "$postgres"
measure "PostgreSQL, clustered" "$postgres"
measure SQLite "$sqlite"
measure "PostgreSQL, clustered" "$postgres"
measure SQLite "$sqlite"
rm -f "$work/wrk.out"
