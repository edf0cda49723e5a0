# Sourced, from Benchmarks/, by the benchmark scripts that load catalog serve with wrk: sets
# `work` (.corpus/work, made if missing), installs what the project needs (scripts/install-deps)
# and Debian's wrk if it is missing (through sudo when not root), and defines random_pages.
work="$PWD/.corpus/work"
mkdir -p "$work"
../scripts/install-deps
command -v wrk > /dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq wrk; }

# random_pages CATALOG DB: writes $work/pages.lua, a wrk script that asks for /api/page of the
# 375-point, 2-column layout at random offsets over the catalog's content height. Without
# arguments every thread of every run asks for the same offsets (seed 7), so a run replays the
# pages of the runs before it; `wrk ... -s pages.lua -- SEED` gives each thread offsets of its own.
random_pages() {
    local height
    height=$("$1" page --db "$2" --width 375 --cols 2 --json | python3 -c "import json,sys; print(int(json.load(sys.stdin)['contentHeight']))")
    cat > "$work/pages.lua" <<LUA
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("number", threads)
end
function init(args)
  if args[1] then math.randomseed(tonumber(args[1]) * 1000 + number) else math.randomseed(7) end
end
request = function()
  return wrk.format("GET", "/api/page?width=375&cols=2&offset=" .. math.random(0, $height))
end
LUA
}
