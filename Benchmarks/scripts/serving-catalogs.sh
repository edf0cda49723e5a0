# Sourced, from Benchmarks/, by the serving benchmarks once `size` is set: builds the release
# binary and sets `catalog` to it, prints the machine, starts a throwaway PostgreSQL
# (postgres-server.sh), and sets `sqlite` and `postgres` to catalogs of the same `size` generated
# rows, the SQLite one reused from .corpus/work (imported-catalog.sh), the PostgreSQL one
# imported now; also makes start_server (scripts/start-server.sh) available.
(cd .. && swift build -c release --product catalog >&2)
catalog="$(cd .. && pwd)/.build/release/catalog"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
source scripts/imported-catalog.sh
source ../scripts/start-server.sh
source scripts/postgres-server.sh
start_postgres
sqlite=$(imported_catalog "$catalog" "$size" page)
postgres=$(imported_postgres "$catalog" "$PWD/.corpus/work/import-$size.csv")
# What autovacuum does some time after a bulk load (PostgreSQL's "Populating a Database": run
# ANALYZE afterwards), done before measuring so that it does not run during a measurement: the
# table's statistics, and every row's hint bits set once (else the first reads of each page
# write it, mid-measurement).
"${psql[@]}" -d catalog -c 'VACUUM (ANALYZE) items' > /dev/null

# stored_pages: stores the 375-point, 2-column layout the pages read in both catalogs, and
# writes the wrk script of random offsets over its content height (random_pages).
stored_pages() {
    for db in "$sqlite" "$postgres"; do
        "$catalog" layout --db "$db" --width 375 --cols 2 > /dev/null
    done
    random_pages "$catalog" "$sqlite"
}

# read_in DB: DB's files read into the page cache, as a server that has run a while has them.
# PG_PREWARM=1: PostgreSQL's items and files, and their indexes, also read into its own buffers
# (pg_prewarm), as a server whose shared_buffers hold them has them after a while (with
# PG_SETTINGS="-c shared_buffers=6GB", a quarter of this machine's memory).
read_in() {
    if [ "$1" = "$sqlite" ]; then cat "$sqlite"* > /dev/null; return; fi
    cat "$pg_server"/data/base/*/* > /dev/null 2>&1 || true
    if [ -n "${PG_PREWARM:-}" ]; then
        "${psql[@]}" -d catalog -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm' \
            -c "SELECT sum(pg_prewarm(c.oid)) AS blocks FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') AND c.relname ~ '^(items|files)'" >&2
    fi
}
