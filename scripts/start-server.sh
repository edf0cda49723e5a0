# Sourced by the benchmark scripts that measure `catalog serve`: start_server CATALOG [SERVE
# OPTIONS...] starts `CATALOG serve --port 0 --quiet OPTIONS` in the background, waits (60 s at
# most) for its `listening on` line, and sets `server` (its pid) and `url`.
start_server() {
    local catalog=$1 fifo line
    shift
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    "$catalog" serve --port 0 --quiet "$@" > "$fifo" &
    server=$!
    read -r -t 60 line < "$fifo"
    rm -f "$fifo"
    url=${line#listening on }
}
