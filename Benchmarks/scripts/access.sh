#!/usr/bin/env bash
# Issue #20's benchmark: what access control and the connection guard cost a page, and what
# abuse costs a normal client. wrk (2 threads, 64 connections, 15 s) on /api/page at random
# offsets of a stored layout of 1,000,000 imported items, in one run:
#   - the build before access control (REV, default b3f0591) and this one, both open on loopback;
#   - this one with access control on: a bearer token, then the gallery's session cookie;
#   - both builds again while a second process holds 1,000 idle connections and 50 clients
#     that send their heads a byte every half second (a slowloris), and how many of those
#     connections each server still holds at the end.
#   Benchmarks/scripts/access.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wrk-setup.sh
source scripts/release-builds.sh
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
release_builds "${1:-b3f0591}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
ulimit -n 65536 2> /dev/null || true

# One catalog per build: the newer one migrates a catalog, which the older one then refuses.
for build in before after; do
    db=$(imported_catalog "${!build}" 1000000 "access-$build")
    "${!build}" layout --db "$db" --width 375 --cols 2 > /dev/null
    declare "db_$build=$db"
done
random_pages "$after" "$db_after"
tokens="$work/access.tokens"
rm -f "$tokens"
token=$("$after" token new --token-file "$tokens" 2> /dev/null)

pages() { # LABEL [wrk options]
    local label=$1
    shift
    echo "$label: $(wrk -t2 -c64 -d15s --latency -s "$work/pages.lua" "$@" "$url" | grep -E "Requests/sec|99%|Non-2xx" | tr -s ' ' | paste -sd ' ')"
}

for build in before after; do
    binary=${!build}
    db_of=db_$build
    start_server "$binary" --quiet --db "${!db_of}"
    pages "$build, open"
    kill -TERM "$server"; wait "$server" || true
done

start_server "$after" --quiet --db "$db_after" --token-file "$tokens"
pages "after, bearer token" -H "Authorization: Bearer $token"
cookie=$(curl -s -D - -o /dev/null -H 'Content-Type: application/json' -H "Origin: http://127.0.0.1:$port" \
    --data "{\"token\":\"$token\"}" "${url}api/session" | tr -d '\r' | sed -nE 's/^[Ss]et-[Cc]ookie: ([^;]*);.*/\1/p')
pages "after, session cookie" -H "Cookie: $cookie"
kill -TERM "$server"; wait "$server" || true

for build in before after; do
    binary=${!build}
    db_of=db_$build
    start_server "$binary" --quiet --db "${!db_of}"
    python3 scripts/abuse.py "$port" 1000 50 20 > "$work/abuse.out" &
    abuser=$!
    sleep 3 # the connections are open and the slow clients trickling
    pages "$build, under 1,000 idle connections and 50 slow clients"
    wait "$abuser" || true
    echo "  $(cat "$work/abuse.out")"
    kill -TERM "$server"; wait "$server" || true
done
