#!/usr/bin/env bash
# The first page of a configuration never seen, through a server (GET /api/page), on SQLite and
# on PostgreSQL: on a server just started, three configurations in a row (414 points/3 columns,
# 320/4, 375/2 with month sections); for each, the seconds to its first page, to a second page
# of it asked right after (offset 40000), and until its layout is listed stored (/api/layouts,
# polled every 20 ms). With BEFORE, a server of that build too, alternating with this one.
#   [BEFORE=BINARY] Benchmarks/scripts/first-page.sh [SIZE] [ROUNDS]   (default 10000000 items, 2 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-10000000}" rounds="${2:-2}"
source scripts/serving-catalogs.sh
builds=("now=$catalog")
[ -n "${BEFORE:-}" ] && builds=("before=$BEFORE" "${builds[@]}")

seconds() { # since START ($EPOCHREALTIME then), to the hundredth
    local us=$((${EPOCHREALTIME/./} - ${1/./}))
    printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
}
fresh() { curl -s "${url}api/layouts" | grep -o '"fresh":true' | wc -l; }

for ((round = 1; round <= rounds; round++)); do
    for build in "${builds[@]}"; do
        name=${build%%=*} binary=${build#*=}
        for db in "$sqlite" "$postgres"; do
            backend=$([ "$db" = "$sqlite" ] && echo SQLite || echo PostgreSQL)
            "$catalog" layouts --db "$db" --drop > /dev/null
            start_server "$binary" --quiet --db "$db"
            stored=0
            for config in "width=414&cols=3" "width=320&cols=4" "width=375&cols=2&sections=month"; do
                start=$EPOCHREALTIME
                curl -s -o /dev/null "${url}api/page?$config"
                first=$(seconds "$start")
                curl -s -o /dev/null "${url}api/page?$config&offset=40000"
                second=$(seconds "$start")
                stored=$((stored + 1))
                while [ "$(fresh)" -lt "$stored" ]; do sleep 0.02; done
                echo "round $round, $name, $backend, $config: first page $first s, second $second s, stored at $(seconds "$start") s"
            done
            kill -TERM "$server"; wait "$server" || true
        done
    done
done
for db in "$sqlite" "$postgres"; do "$catalog" layouts --db "$db" --drop > /dev/null; done
