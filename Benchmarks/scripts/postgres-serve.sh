#!/usr/bin/env bash
# Issue #19's serving benchmark: wrk on /api/page at random offsets of a stored layout against
# one server on SQLite, one on PostgreSQL and two on the same PostgreSQL (wrk on both at once,
# their rates added), in the same run on the same imported catalog; and the first page of a
# configuration never seen on each backend, on a server just started and on one that has laid
# out another (PostgreSQL: the order data already in its memory).
#   [BEFORE=BINARY] Benchmarks/scripts/postgres-serve.sh [SIZE]     (default 10000000 imported items)
# wrk: 2 threads, 64 connections (32 per server with two), 20 s each after 10 s of the same load
# to warm up (each server's memory, the kernel's page cache), on loopback; servers run with
# --quiet. Everything shares the machine's cores: wrk, the servers and PostgreSQL. With BEFORE,
# one server of that build on the same PostgreSQL too, measured the same way. Each server's
# resident memory is printed after its run. Each server's catalog is read into the page cache
# before it starts (read_in; with PG_SETTINGS="-c shared_buffers=6GB" PG_PREWARM=1, PostgreSQL's
# tables into its own buffers as well).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
size="${1:-10000000}"
source scripts/serving-catalogs.sh

resident() { echo "  resident memory of the server: $(($(ps -o rss= -p "$1") / 1024)) MB"; }

pages() { # LABEL URL...: wrk on each URL at once, 64 connections shared; prints each and the sum
    local label=$1 n=$(($# - 1)) i=0 pids=()
    shift
    for u in "$@"; do # the warm-up
        wrk -t2 -c$((64 / n)) -d10s -s "$work/pages.lua" "$u" > /dev/null &
        pids+=($!)
    done
    wait "${pids[@]}"
    pids=()
    for u in "$@"; do
        wrk -t2 -c$((64 / n)) -d20s --latency -s "$work/pages.lua" "$u" > "$work/wrk-$i.out" &
        pids+=($!)
        i=$((i + 1))
    done
    wait "${pids[@]}" # not the servers
    echo "$label:"
    for ((i = 0; i < n; i++)); do grep -E "Requests/sec|99%|50%|Non-2xx" "$work/wrk-$i.out" | sed 's/^/  /'; done
    [ "$n" -gt 1 ] && echo "  sum: $(cat "$work"/wrk-*.out | awk '/Requests\/sec/ {s += $2} END {printf "%.2f", s}') requests/s"
    rm -f "$work"/wrk-*.out
}

stored_pages

echo "## $size imported items, 375 points, 2 columns, stored layout"
read_in "$sqlite"
start_server "$catalog" --quiet --db "$sqlite"
pages "one server on SQLite" "$url"
resident "$server"
kill -TERM "$server"; wait "$server" || true

if [ -n "${BEFORE:-}" ]; then
    read_in "$postgres"
    start_server "$BEFORE" --quiet --db "$postgres"
    pages "one server on PostgreSQL, the build before ($BEFORE)" "$url"
    resident "$server"
    kill -TERM "$server"; wait "$server" || true
fi

read_in "$postgres"
start_server "$catalog" --quiet --db "$postgres"
first=$url first_pid=$server
pages "one server on PostgreSQL" "$first"
resident "$first_pid"
start_server "$catalog" --quiet --db "$postgres"
pages "two servers on the same PostgreSQL" "$first" "$url"
kill -TERM "$server" "$first_pid"; wait "$server" "$first_pid" || true

echo "## the first page of a configuration never seen: computed, stored, served"
echo "(414 points, 3 columns on a server just started; then 320 points, 4 columns, and 375 points,"
echo " 2 columns with month sections, on the same server)"
for db in "$sqlite" "$postgres"; do
    read_in "$db"
    start_server "$catalog" --quiet --db "$db"
    for config in "width=414&cols=3" "width=320&cols=4" "width=375&cols=2&sections=month"; do
        start=$EPOCHREALTIME
        curl -s -o /dev/null "${url}api/page?$config"
        echo "$([ "$db" = "$sqlite" ] && echo SQLite || echo PostgreSQL), $config: $(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s"
    done
    kill -TERM "$server"; wait "$server" || true
    "$catalog" layouts --db "$db" --drop > /dev/null
done
