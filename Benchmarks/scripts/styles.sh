#!/usr/bin/env bash
# Issue #13's whole-system benchmark: justified rows and the carousel through catalog serve.
# For each size: the first computation of each stored layout (catalog layout), then under wrk
# (2 threads, 64 connections, 20 s each, loopback, --quiet server) in the same run:
# /api/health (the server's floor), waterfall pages, justified pages, carousel pages with their
# effects, and /api/snap with and without velocity, all at random places.
#   Benchmarks/scripts/styles.sh [SIZES...]   (default: 10000000 imported items)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
waterfall="width=1200&cols=5"
justified="width=1200&style=justified&row-height=180"
carousel="width=1200&style=carousel&item-height=300"
options() { echo "--${1//&/ --}" | sed 's/=/ /g'; }
for size in "${@:-10000000}"; do
    db=$(imported_catalog "$catalog" "$size" page)
    echo "## $size imported items"
    "$catalog" layouts --db "$db" --drop > /dev/null
    for query in "$waterfall" "$justified" "$carousel"; do
        start=$EPOCHREALTIME
        # shellcheck disable=SC2046
        "$catalog" layout --db "$db" $(options "$query") > /dev/null
        echo "first computation and storage, $query: $(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s"
    done
    length() { # the scroll length of a stored layout: content height, or a carousel's width
        # shellcheck disable=SC2046
        "$catalog" page --db "$db" $(options "$1") --json | python3 -c "import json,sys; p=json.load(sys.stdin); print(int(p['contentWidth'] if 'carousel' in '$1' else p['contentHeight']))"
    }
    start_server "$catalog" --quiet --db "$db"
    run() { # NAME PATH-PREFIX PARAMETER LENGTH [SUFFIXES...]: wrk over random values of PARAMETER
        local name=$1 prefix=$2 parameter=$3 length=$4; shift 4
        local suffixes=("${@:-}")
        {
            echo "math.randomseed(7)"
            printf 'local suffixes = {'; for suffix in "${suffixes[@]}"; do printf '"%s",' "$suffix"; done; echo '}'
            echo "request = function()"
            echo "  return wrk.format(\"GET\", \"$prefix&$parameter=\" .. math.random(0, $length) .. suffixes[math.random(#suffixes)])"
            echo "end"
        } > "$work/styles.lua"
        echo "$name:"
        wrk -t2 -c64 -d20s --latency -s "$work/styles.lua" "$url" | grep -E "Requests/sec|99%|50%|Non-2xx"
    }
    echo "health:"
    wrk -t2 -c64 -d20s --latency "${url}api/health" | grep -E "Requests/sec|99%|50%"
    run "waterfall pages (812 high)" "/api/page?$waterfall&height=812" offset "$(length "$waterfall")"
    run "justified pages (812 high)" "/api/page?$justified&height=812" offset "$(length "$justified")"
    run "carousel pages (1,200 wide, with effects)" "/api/page?$carousel&height=316" offset "$(length "$carousel")"
    run "snap (velocity 0, 2.5, -2.5)" "/api/snap?$carousel" proposed "$(length "$carousel")" "" "&velocity=2.5" "&velocity=-2.5"
    kill -TERM "$server"; wait "$server" || true
done
