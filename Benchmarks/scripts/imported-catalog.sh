# Sourced by the benchmark scripts: imported_catalog BINARY SIZE NAME prints the path of a
# catalog of SIZE generated rows (make_import.py), importing it with BINARY the first time.
# Catalogs and their CSV files live in .corpus/work and are reused by later runs.
imported_catalog() {
    local binary=$1 size=$2 name=$3
    local work="$PWD/.corpus/work"
    local csv="$work/import-$size.csv" db="$work/$name-$size.sqlite"
    mkdir -p "$work"
    [ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$size"
    if [ ! -f "$db.done" ]; then
        rm -f "$db" "$db-wal" "$db-shm"
        "$binary" import --db "$db" "$csv" > /dev/null
        touch "$db.done"
    fi
    echo "$db"
}
