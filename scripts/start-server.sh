# Sourced by the scripts that run `catalog serve` (scripts/api-check, scripts/proxy-check and the
# benchmarks): start_server CATALOG [SERVE OPTIONS...] starts `CATALOG serve --port 0 OPTIONS` in
# the background, waits (60 s at most) for its `listening on` line, and sets `server` (its pid),
# `url` (http://127.0.0.1:PORT/, also for a server on 0.0.0.0) and `port`; returns 1, saying so,
# if the server did not start. Its stderr is the caller's (redirect the call to keep it).
start_server() {
    local catalog=$1 fifo line=""
    shift
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    "$catalog" serve --port 0 "$@" > "$fifo" &
    server=$!
    read -r -t 60 line < "$fifo" || true
    rm -f "$fifo"
    [[ $line == "listening on http://"* ]] || { echo "start_server: the server did not start (its first line: '$line')" >&2; return 1; }
    port=${line##*:}
    port=${port%/}
    url="http://127.0.0.1:$port/"
}
