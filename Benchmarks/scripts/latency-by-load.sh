#!/usr/bin/env bash
# Issue #19's p99 target (5 ms) against the load: one server on SQLite, then one on PostgreSQL,
# each with the same stored layout, wrk on /api/page at random offsets (postgres-serve.sh's
# pages) with 1, 2, 4, 8, 16 and 64 connections, 10 s each after 10 s of 64 connections to warm
# up. postgres-serve.sh measures at 64 connections only, where a page waits behind the other 63
# on two cores shared with wrk and the database: this says from what load on the p99 is queueing.
# Each backend's files are read into the page cache before its server starts.
#   Benchmarks/scripts/latency-by-load.sh [SIZE]     (default 10000000 imported items)
# SERVE_WITH="BINARY..." serves with other builds, each in turn on both backends, in one run (the
# catalogs are made by this tree's; the name of each binary's file labels its rows);
# SERVE_ARGS="--page-cache-mb 1024" passes options to both servers. FRESH_OFFSETS=1 gives each
# wrk run and thread offsets of its own; without it every run asks for the same offsets in the same
# order (seed 7), so a server's page cache holds most of what a run asks for from the runs before.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
size="${1:-10000000}"
source scripts/serving-catalogs.sh

stored_pages

echo "## $size imported items, 375 points, 2 columns, stored layout, one server"
printf '%-10s %-20s %11s %12s %9s %9s %9s\n' backend build connections requests/s p50 p90 p99
for db in "$sqlite" "$postgres"; do
    for build in ${SERVE_WITH:-$catalog}; do
        name=$([ "$db" = "$sqlite" ] && echo SQLite || echo PostgreSQL)
        label=$(basename "$build")
        read_in "$db"
        # shellcheck disable=SC2086 # SERVE_ARGS is words
        start_server "$build" --quiet --db "$db" ${SERVE_ARGS:-}
        run=1 # with FRESH_OFFSETS, each wrk run's seed
        # shellcheck disable=SC2086 # -- and the seed are two words
        wrk -t2 -c64 -d10s -s "$work/pages.lua" "$url" ${FRESH_OFFSETS:+-- $run} > /dev/null # the warm-up
        for c in 1 2 4 8 16 64; do
            run=$((run + 1))
            # shellcheck disable=SC2086
            wrk -t$((c < 2 ? 1 : 2)) -c$c -d10s --latency -s "$work/pages.lua" "$url" ${FRESH_OFFSETS:+-- $run} > "$work/wrk.out"
            awk -v name="$name" -v build="$label" -v c="$c" '
                /Requests\/sec/ { rate = $2 }
                $1 == "50%" { p50 = $2 } $1 == "90%" { p90 = $2 } $1 == "99%" { p99 = $2 }
                /Non-2xx/ { bad = "  (" $0 ")" }
                END { printf "%-10s %-20s %11d %12.0f %9s %9s %9s%s\n", name, build, c, rate, p50, p90, p99, bad }' "$work/wrk.out"
        done
        kill -TERM "$server"; wait "$server" || true
    done
done
rm -f "$work/wrk.out"
