#!/usr/bin/env bash
# What laying out and storing new configurations costs the pages of a stored layout, on SQLite: a server with the
# 375-point, 2-column layout stored, under `wrk -t2 -c16` on pages of it at random offsets; for
# 12 s with nothing else (quiet), then for 12 s during which two configurations never seen
# (414/3 at 3 s, 320/4 at 7 s) are asked for, so that the server computes and stores their
# layouts (stores). Prints wrk's latency percentiles and maximum for both, and each new
# configuration's first page. Then `catalog layout` of 414/3 three times (dropped before each):
# what it says the compute and the store took. With BEFORE, other builds too (BINARY, or
# NAME=BINARY, several apart by spaces), alternating with this one. Each build makes the
# catalog's layout file anew.
#   [BEFORE="[NAME=]BINARY ..."] Benchmarks/scripts/store-beside-readers.sh [SIZE] [ROUNDS]   (default 10000000 items, 2 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
size="${1:-10000000}" rounds="${2:-2}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
source scripts/wrk-setup.sh
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
db=$(imported_catalog "$catalog" "$size" page)
builds=()
for build in ${BEFORE:-}; do
    [[ $build == *=* ]] || build="before=$build"
    builds+=("$build")
done
builds+=("now=$catalog")
script="$work/pages.lua" # written by random_pages

summary() { grep -E "^ +(50|99)%|Latency  |Requests/sec" | awk '
    /Latency  / { max = $4 } /50%/ { p50 = $2 } /99%/ { p99 = $2 } /Requests/ { rate = $2 }
    END { printf "%s pages/s, p50 %s, p99 %s, max %s\n", rate, p50, p99, max }'; }

for ((round = 1; round <= rounds; round++)); do
    for build in "${builds[@]}"; do
        name=${build%%=*} binary=${build#*=}
        # The layout file is a cache each build makes anew (a build before Migrations/layouts/0002
        # refuses the file a later one has migrated).
        rm -f "$db.layouts" "$db.layouts-journal"
        "$binary" layout --db "$db" --width 375 --cols 2 > /dev/null
        random_pages "$binary" "$db"
        start_server "$binary" --quiet --db "$db"
        wrk -t2 -c16 -d8s -s "$script" "$url" > /dev/null # warm-up: the server's memory, the kernel's page cache
        echo "round $round, $name, quiet: $(wrk -t2 -c16 -d12s --latency -s "$script" "$url" | summary)"
        (sleep 3; curl -s -o /dev/null -w "round $round, $name, first page of 414/3: %{time_total} s\n" "${url}api/page?width=414&cols=3"
         sleep 3; curl -s -o /dev/null -w "round $round, $name, first page of 320/4: %{time_total} s\n" "${url}api/page?width=320&cols=4") &
        during=$(wrk -t2 -c16 -d12s --latency -s "$script" "$url" | summary)
        wait $!
        echo "round $round, $name, stores: $during"
        kill -TERM "$server"; wait "$server" || true
        for run in 1 2 3; do
            "$binary" layouts --db "$db" --drop "waterfall width=414 cols=3" > /dev/null
            echo "round $round, $name, catalog layout 414/3: $("$binary" layout --db "$db" --width 414 --cols 3 | grep -o 'computed in .*stored in [0-9.]* s')"
        done
    done
done
rm -f "$db.layouts" "$db.layouts-journal"
