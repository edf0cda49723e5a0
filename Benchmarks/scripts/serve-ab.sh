#!/usr/bin/env bash
# A/B of server builds on one backend, in rounds, for changes smaller than the noise between
# runs (10-20 % here): each round starts a fresh server per build in turn, warms it with 15 s of
# wrk at 64 connections, then measures 10 s with offsets new to it (each run and thread a seed of
# its own), and the CPU time the server and every PostgreSQL process took meanwhile, per page.
# Prints each run, then each build's medians; compare builds within one run only.
#   SERVE_WITH="OLD NEW" [BACKEND=postgres|sqlite] [ROUNDS=4] Benchmarks/scripts/serve-ab.sh [SIZE]
# (default 10,000,000 imported items; PG_SETTINGS and SERVE_ARGS as in latency-by-load.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
size="${1:-10000000}"
source scripts/serving-catalogs.sh
db=$([ "${BACKEND:-postgres}" = sqlite ] && echo "$sqlite" || echo "$postgres")
"$catalog" layout --db "$db" --width 375 --cols 2 > /dev/null # the stored layout the pages read
random_pages "$catalog" "$sqlite"

# utime + stime, in clock ticks, of the server and of every PostgreSQL process (0 without them)
server_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
postgres_ticks() { cat /proc/[0-9]*/stat 2> /dev/null | awk '$2 == "(postgres)" { t += $14 + $15 } END { print t + 0 }'; }
hz=$(getconf CLK_TCK)
results="$work/serve-ab.txt"
: > "$results"
seed=100
echo "## $size imported items, ${BACKEND:-postgres}: build, pages/s, p99, CPU µs a page (server, PostgreSQL)"
for round in $(seq "${ROUNDS:-4}"); do
    for build in $SERVE_WITH; do
        # shellcheck disable=SC2086 # SERVE_ARGS is words
        start_server "$build" --quiet --db "$db" ${SERVE_ARGS:-}
        wrk -t2 -c64 -d15s -s "$work/pages.lua" "$url" -- $((seed += 1)) > /dev/null
        s0=$(server_ticks); p0=$(postgres_ticks)
        wrk -t2 -c64 -d10s --latency -s "$work/pages.lua" "$url" -- $((seed += 1)) > "$work/wrk.out"
        s1=$(server_ticks); p1=$(postgres_ticks)
        kill -TERM "$server"; wait "$server" || true
        awk -v build="$(basename "$build")" -v round="$round" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" '
            /requests in/ { n = $1 } /Requests\/sec/ { rate = $2 } $1 == "99%" { p99 = $2 }
            END { printf "%d %s %.0f %s %.0f %.0f\n", round, build, rate, p99, s * 1e6 / hz / n, p * 1e6 / hz / n }' "$work/wrk.out" | tee -a "$results"
    done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    _, build, rate, _, server, postgres = line.split()
    runs[build].append((float(rate), float(server), float(postgres)))
for build, rows in runs.items():
    med = lambda i: statistics.median(r[i] for r in rows)
    print(f"{build}: median {med(0):.0f} pages/s (runs {', '.join(f'{r[0]:.0f}' for r in rows)}), "
          f"CPU a page: server {med(1):.0f} µs, PostgreSQL {med(2):.0f} µs")
PY
rm -f "$work/wrk.out"
