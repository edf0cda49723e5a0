#!/usr/bin/env bash
# Issue #19: what a scan costs on PostgreSQL against SQLite, step by step on a copy of the
# 100,000-file benchmark tree (hard links, so no image is written twice): a first scan, an
# unchanged rescan, then rescans after 10 folders (10,000 files) are renamed, after 10 are
# deleted, and after 10 are rewritten (each file copied onto itself: a new inode, the same
# bytes). Each step timed once a round, for each build named, on SQLite and on a throwaway
# PostgreSQL (postgres-server.sh: initdb, Unix socket, default durability settings).
#   Benchmarks/scripts/postgres-scan.sh [ROUNDS] [BINARY...]
#     (defaults: 2 rounds, .build/release/catalog, built here)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
shift || true
root="$(cd .. && pwd)"
binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
    (cd "$root" && swift build -c release --product catalog > /dev/null)
    binaries=("$root/.build/release/catalog")
fi
corpus=.corpus/scan-100000 # scan.sh's tree, written as it writes it when missing
if [ ! -f "$corpus/.done" ]; then
    python3 -c "import PIL" 2>/dev/null || ../scripts/pip-install pillow
    rm -rf "$corpus" "$corpus.pool"
    python3 scripts/make_corpus.py "$corpus" 100000 2000
    touch "$corpus/.done"
fi
work="$(mktemp -d /tmp/catalog-pg-scan-XXXXXX)"
source scripts/postgres-server.sh
start_postgres
trap '"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_server/data" -m fast -w stop > /dev/null; rm -rf "$pg_server" "$work"' EXIT

step() { # NAME BINARY DB: one rescan of the copy, timed
    local start=$EPOCHREALTIME
    "$2" scan --db "$3" "$work/tree" > /dev/null
    printf '  %-36s %6.2f s\n' "$1" "$(python3 -c "print($EPOCHREALTIME - $start)")"
}

for round in $(seq "$rounds"); do
    for binary in "${binaries[@]}"; do
        for backend in sqlite postgres; do
            rm -rf "$work/tree" "$work"/catalog.sqlite*
            cp -al "$corpus" "$work/tree"
            if [ "$backend" = sqlite ]; then
                db="$work/catalog.sqlite"
            else
                "${psql[@]}" -c 'DROP DATABASE IF EXISTS scan' -c 'CREATE DATABASE scan' > /dev/null
                db="$(pg_url scan)"
            fi
            echo "round $round, $binary, $backend"
            step "first scan (100,000 files)" "$binary" "$db"
            step "unchanged rescan" "$binary" "$db"
            for d in 0 1 2 3 4 5 6 7 8 9; do mv "$work/tree/${d}0" "$work/tree/${d}0-renamed"; done
            step "10 folders renamed (10,000 files)" "$binary" "$db"
            rm -rf "$work"/tree/?1
            step "10 folders deleted (10,000 files)" "$binary" "$db"
            for f in "$work"/tree/?2/*; do cp "$f" "$f.new"; mv "$f.new" "$f"; done
            step "10 folders rewritten (10,000 files)" "$binary" "$db"
        done
    done
done
