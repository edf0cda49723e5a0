# Sourced by the PostgreSQL benchmarks: start_postgres starts a throwaway server (initdb into a
# temporary folder, Unix socket only, as `postgres` when root; durability settings left at
# their defaults) that is stopped and removed when the script exits, and sets `psql` (an array:
# psql on it as the superuser) and `pg_server`; pg_url DB prints the postgres:// URL of DB on it.
# PG_SETTINGS="-c shared_buffers=4GB ..." adds settings to the server's command line.
start_postgres() {
    local bin port
    bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    as_postgres=()
    [ "$(id -u)" -eq 0 ] && as_postgres=(runuser -u postgres --)
    pg_bin="$bin"
    pg_server="$(mktemp -d /tmp/catalog-pg-bench-XXXXXX)"
    chmod 755 "$pg_server"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$pg_server"
    pg_port=$((20000 + RANDOM % 30000))
    "${as_postgres[@]}" "$bin/initdb" -D "$pg_server/data" -U postgres --auth=trust -E UTF8 --no-locale > /dev/null
    "${as_postgres[@]}" "$bin/pg_ctl" -D "$pg_server/data" -l "$pg_server/log" -w start \
        -o "-k $pg_server -c listen_addresses='' -p $pg_port -c max_wal_size=4GB -c max_connections=300 ${PG_SETTINGS:-}" > /dev/null
    trap '"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_server/data" -m fast -w stop > /dev/null; rm -rf "$pg_server"' EXIT
    psql=(psql -X -q -h "$pg_server" -p "$pg_port" -U postgres)
}

pg_url() {
    echo "postgres://postgres@/$1?host=$pg_server&port=$pg_port"
}

# imported_postgres BINARY CSV: makes the database `catalog` on the throwaway server, imports
# CSV into it with BINARY (saying how long on stderr), and prints its URL.
imported_postgres() {
    local start url
    "${psql[@]}" -c 'CREATE DATABASE catalog' >&2
    url="$(pg_url catalog)"
    start=$EPOCHREALTIME
    "$1" import --db "$url" "$2" > /dev/null
    echo "import of $2 into PostgreSQL: $(python3 -c "print(round($EPOCHREALTIME - $start, 1))") s" >&2
    echo "$url"
}

# import_csv LINES: sets `work` ($BENCH_WORK, else /tmp/catalog-bench), `csv` (LINES pins made
# there once by make_import.py) and `header` (its header line alone: an import of it makes a
# catalog with no items, which `catalog stats` does not in a database without tables).
import_csv() {
    work="${BENCH_WORK:-/tmp/catalog-bench}"
    mkdir -p "$work"
    csv="$work/import-$1.csv"
    [ -f "$csv" ] || python3 scripts/make_import.py "$csv" "$1"
    header="$work/import-header.csv"
    head -1 "$csv" > "$header"
}
