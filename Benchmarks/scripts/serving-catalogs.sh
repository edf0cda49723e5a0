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
read_in() {
    if [ "$1" = "$sqlite" ]; then cat "$sqlite"* > /dev/null; else cat "$pg_server"/data/base/*/* > /dev/null 2>&1 || true; fi
}
