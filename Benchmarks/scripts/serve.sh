#!/usr/bin/env bash
# Issue #9's benchmark: catalog serve under wrk, pages at random offsets next to /api/health on
# the same server in the same run, and the first request of a configuration not stored.
#   Benchmarks/scripts/serve.sh [SIZES...]   (default: 1000000 10000000 imported items)
# wrk: 2 threads, 64 connections, 20 s each, on loopback; the server runs with --quiet.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
for size in "${@:-1000000 10000000}"; do
    db=$(imported_catalog "$catalog" "$size" page)
    echo "## $size imported items"
    "$catalog" layout --db "$db" --width 375 --cols 2 > /dev/null # the stored layout the pages read
    random_pages "$catalog" "$db"
    start_server "$catalog" --quiet --db "$db"
    echo "health:"
    wrk -t2 -c64 -d20s --latency "${url}api/health" | grep -E "Requests/sec|99%|50%"
    echo "pages at random offsets (stored layout):"
    wrk -t2 -c64 -d20s --latency -s "$work/pages.lua" "$url" | grep -E "Requests/sec|99%|50%|Non-2xx"
    start=$EPOCHREALTIME
    curl -s -o /dev/null "${url}api/page?width=414&cols=3"
    echo "first request of a configuration not stored (414 points, 3 columns): $(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s"
    "$catalog" layouts --db "$db" --drop > /dev/null
    kill -TERM "$server"; wait "$server" || true
done
