#!/usr/bin/env bash
# Two or more builds of `catalog serve` on one catalog, alternating, under the same wrk load:
# pages of the 375-point, 2-column stored layout at random offsets (the pages.lua that
# serve.sh writes for that catalog).
#   Benchmarks/scripts/serve-compare.sh DB ROUNDS NAME=BINARY...
# e.g. serve-compare.sh .corpus/work/page-1000000.sqlite 2 before=/tmp/catalog-old now=../.build/release/catalog
# Each server runs alone, with --quiet, for 15 s of `wrk -t2 -c64` on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
db=$1 rounds=$2
shift 2
lua="$PWD/.corpus/work/pages.lua"
[ -f "$lua" ] || { echo "no $lua: run serve.sh (or postgres-serve.sh) on this catalog first" >&2; exit 2; }
port=18181
for round in $(seq "$rounds"); do
    for spec in "$@"; do
        name=${spec%%=*} binary=${spec#*=}
        "$binary" layout --db "$db" --width 375 --cols 2 > /dev/null # stored, if it was not
        "$binary" serve --quiet --db "$db" --port $port > /dev/null &
        server=$!
        for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/api/health" > /dev/null && break; sleep 0.05; done
        out=$(wrk -t2 -c64 -d15s --latency -s "$lua" "http://127.0.0.1:$port/")
        echo "$name, round $round: $(awk '/Requests\/sec/ {print $2}' <<< "$out") pages/s," \
            "p50 $(awk '$1 == "50%" {print $2}' <<< "$out"), p99 $(awk '$1 == "99%" {print $2}' <<< "$out")" \
            "$(grep -q Non-2xx <<< "$out" && grep Non-2xx <<< "$out")"
        kill -TERM "$server"; wait "$server" || true
    done
done
