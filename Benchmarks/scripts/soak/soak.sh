#!/usr/bin/env bash
# A soak of `catalog serve --scan`: a copy of 20,000 images of the benchmark tree (folders 00-19
# of scan.sh's corpus, made here if missing) changed every 0.5-1.5 s (mutator.py: adds, deletes,
# renames, moves, rewrites, new dates, folder operations, bursts), while wrk asks for random
# pages, items and stats (rand.lua, 25 s on, 5 s off) and a client (client.py) follows
# /api/changes and checks each change set against /api/items at its generation, and random pages'
# frames, ids and ETags. sampler.py writes every 30 s: the server's memory, threads, descriptors,
# a cached page's p50/p99, /api/health, the catalog's sizes (PostgreSQL: pg_database_size and
# pg_wal) and the thumbnail cache. At the end: the catalog against the files on disk, and how
# long SIGTERM takes.
#   Benchmarks/scripts/soak/soak.sh sqlite|postgres [SECONDS] [BINARY]
#     (defaults: 600 s, .build/release/catalog built here); results in $SOAK_WORK (a new folder
#     under /tmp unless set): samples.jsonl, client.jsonl, mutator.jsonl, wrk.log, server.err
set -u
backend=$1
duration=${2:-600}
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
binary=${3:-}
if [ -z "$binary" ]; then
    (cd "$root" && swift build -c release --product catalog > /dev/null) || exit 1
    binary="$root/.build/release/catalog"
fi
command -v wrk > /dev/null || "$root/scripts/install-deps"
corpus="$root/Benchmarks/.corpus/scan-100000"
if [ ! -f "$corpus/.done" ]; then
    python3 -c "import PIL" 2>/dev/null || "$root/scripts/pip-install" pillow
    rm -rf "$corpus" "$corpus.pool"
    python3 "$root/Benchmarks/scripts/make_corpus.py" "$corpus" 100000 2000
    touch "$corpus/.done"
fi
work=${SOAK_WORK:-$(mktemp -d /tmp/catalog-soak-XXXXXX)}
mkdir -p "$work/tree"
for folder in $(seq -w 0 19); do cp -r "$corpus/$folder" "$work/tree/d$folder"; done
export SOAK_CORPUS="$corpus"
if [ "$backend" = postgres ]; then
    source "$root/Benchmarks/scripts/postgres-server.sh"
    start_postgres
    "${psql[@]}" -c 'CREATE DATABASE catalog' > /dev/null
    db="$(pg_url catalog)"
    sizes="${psql[*]} -At -c \"select 'db_bytes='||pg_database_size('catalog')\"; echo pg_wal=\$(du -sb $pg_server/data/pg_wal | cut -f1); echo pg_conns=\$(${psql[*]} -At -c \"select count(*) from pg_stat_activity where datname='catalog'\")"
else
    db="$work/catalog.sqlite"
    sizes="ls -l $work/ | awk '/catalog/ {print \$9\"=\"\$5}'"
fi
start=$EPOCHREALTIME
"$binary" serve --quiet --port 0 --scan "$work/tree" --db "$db" --thumbnail-cache "$work/thumbs" > "$work/server.out" 2> "$work/server.err" &
server=$!
# Waits for the server's line, then for its first scan (each a condition, bounded).
for _ in $(seq 1 600); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[^/]*' "$work/server.out")
for _ in $(seq 1 600); do grep -q 'scanned:' "$work/server.err" && break; sleep 0.2; done
echo "$url (pid $server), first scan done after $(python3 -c "print(round($EPOCHREALTIME - $start, 2))") s: $(grep scanned: "$work/server.err" | head -1)"
python3 "$here/sampler.py" "$server" "$url" $((duration + 60)) "$work/samples.jsonl" "$sizes" "$work/thumbs" & sampler=$!
python3 "$here/client.py" "$url" "$duration" "$work/client.jsonl" & client=$!
python3 "$here/mutator.py" "$work/tree" "$duration" "$work/mutator.jsonl" & mutator=$!
( end=$((SECONDS + duration)); while [ $SECONDS -lt "$end" ]; do
    echo "== $(date +%T)"
    wrk -t1 -c4 -d25s --latency -s "$here/rand.lua" "$url" 2>&1 | grep -E 'Latency|50%|99%|Requests/sec|Non-2xx|Socket|requests in'
    sleep 5
  done ) > "$work/wrk.log" 2>&1 & load=$!
wait $mutator $client $load
# The watcher settles: the catalog then lists what is on disk.
for _ in $(seq 1 60); do
    find "$work/tree" -type f ! -name '.*' | sort > "$work/fs-files.txt"
    "$binary" list --db "$db" --json | python3 -c 'import sys, json; [print(json.loads(l)["path"]) for l in sys.stdin]' | sort > "$work/list-files.txt"
    cmp -s "$work/fs-files.txt" "$work/list-files.txt" && break
    sleep 1
done
echo "files on disk $(wc -l < "$work/fs-files.txt"), in the catalog $(wc -l < "$work/list-files.txt"), differing lines $(diff "$work/fs-files.txt" "$work/list-files.txt" | grep -c '^[<>]')"
echo "500s in the server's log: $(grep -c 'answered 500' "$work/server.err")"
kill $sampler
stopping=$EPOCHREALTIME
kill -TERM $server
wait $server
echo "server exit $? after SIGTERM in $(python3 -c "print(round($EPOCHREALTIME - $stopping, 2))") s"
python3 - "$work/samples.jsonl" <<'EOF'
import json, sys
print("t (s)  RSS  threads  fds  p50/p99 ms  sizes")
for line in open(sys.argv[1]):
    s = json.loads(line)
    print(s["t"], s.get("VmRSS"), s.get("Threads"), s.get("fds"), s.get("p50_ms"), s.get("p99_ms"), s.get("sizes", "").replace("\n", " "))
EOF
echo "results in $work"
