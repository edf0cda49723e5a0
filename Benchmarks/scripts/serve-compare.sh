#!/usr/bin/env bash
# Two or more builds of `catalog serve` on one catalog, alternating, under the same wrk load:
# pages of the 375-point, 2-column layout (stored first) at random offsets over that catalog.
#   Benchmarks/scripts/serve-compare.sh DB ROUNDS NAME=BINARY...
# DB is a catalog file or a postgres:// URL; e.g., from the repository's root:
#   Benchmarks/scripts/serve-compare.sh Benchmarks/.corpus/work/page-1000000.sqlite 2 \
#       before=/tmp/catalog-8e3d7be now=.build/release/catalog
# Each server runs alone, with --quiet, for 15 s of `wrk -t2 -c64` on loopback.
set -euo pipefail
absolute() { case "$1" in postgres://* | postgresql://* | /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
db=$(absolute "$1") rounds=$2
shift 2
specs=()
for spec in "$@"; do specs+=("${spec%%=*}=$(absolute "${spec#*=}")"); done
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
first=${specs[0]#*=}
"$first" layout --db "$db" --width 375 --cols 2 > /dev/null # the stored layout the pages read
random_pages "$first" "$db" # writes $work/pages.lua for this catalog's height
port=18181
for round in $(seq "$rounds"); do
    for spec in "${specs[@]}"; do
        name=${spec%%=*} binary=${spec#*=}
        "$binary" serve --quiet --db "$db" --port $port > /dev/null &
        server=$!
        for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/api/health" > /dev/null && break; sleep 0.05; done
        out=$(wrk -t2 -c64 -d15s --latency -s "$work/pages.lua" "http://127.0.0.1:$port/")
        echo "$name, round $round: $(awk '/Requests\/sec/ {print $2}' <<< "$out") pages/s," \
            "p50 $(awk '$1 == "50%" {print $2}' <<< "$out"), p99 $(awk '$1 == "99%" {print $2}' <<< "$out")" \
            "$(grep Non-2xx <<< "$out" || true)"
        kill -TERM "$server"; wait "$server" || true
    done
done
