# Sourced, from Benchmarks/, by the benchmark scripts that load catalog serve with wrk: sets
# `work` (.corpus/work, made if missing), installs what the project needs (scripts/install-deps)
# and Debian's wrk if it is missing (through sudo when not root).
work="$PWD/.corpus/work"
mkdir -p "$work"
../scripts/install-deps
command -v wrk > /dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq wrk; }
