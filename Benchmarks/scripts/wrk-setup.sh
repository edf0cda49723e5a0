# Sourced by the benchmark scripts that load catalog serve with wrk: installs Debian's wrk if it
# is missing (through sudo when not root).
command -v wrk > /dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq wrk; }
