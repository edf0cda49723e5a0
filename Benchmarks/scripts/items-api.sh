#!/usr/bin/env bash
# GET /api/items at random deep offsets (what the gallery's viewer asks at every step): the
# median of 21 requests after one warm-up, against `catalog serve` on DB.
#   Benchmarks/scripts/items-api.sh DB [BINARY] [PORT]
#   DB: an SQLite catalog or a postgres:// URL; BINARY: default the release build
set -euo pipefail
db="$1"
binary="${2:-$(cd "$(dirname "$0")/../.." && pwd)/.build/release/catalog}"
port="${3:-18100}"
"$binary" serve --db "$db" --port "$port" > /dev/null 2>&1 &
server=$!
trap 'kill $server 2> /dev/null; wait $server 2> /dev/null || true' EXIT
for _ in $(seq 300); do curl -sf "localhost:$port/api/health" > /dev/null && break; sleep 0.1; done
total=$(curl -sf "localhost:$port/api/items?limit=0" | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])')
curl -sf -o /dev/null "localhost:$port/api/items?offset=$((total * 3 / 4))&limit=1" # the warm-up: a deep offset
RANDOM=7
for _ in $(seq 21); do
    offset=$(( (RANDOM * 32768 + RANDOM) % total ))
    curl -sf -o /dev/null -w '%{time_total}\n' "localhost:$port/api/items?offset=$offset&limit=1"
done | sort -n | sed -n 11p | awk -v n="$total" '{ printf "GET /api/items at a random offset of %d items: median %.1f ms\n", n, $1 * 1000 }'
