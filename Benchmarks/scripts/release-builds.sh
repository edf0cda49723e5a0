# Sourced by the benchmark scripts that compare two builds: release_builds REV builds the release
# catalog of REV (in a git worktree kept in .corpus/rev-REV) and of the working tree, and sets
# `before` and `after` to the two binaries. Run from Benchmarks/.
release_builds() {
    local rev=$1
    local tree
    tree="$PWD/.corpus/rev-$(git rev-parse --short "$rev")"
    [ -d "$tree" ] || git worktree add -f "$tree" "$rev" >&2
    (cd "$tree" && swift build -c release --product catalog >&2)
    (cd .. && swift build -c release --product catalog >&2)
    before="$tree/.build/release/catalog"
    after="$(cd .. && pwd)/.build/release/catalog"
}
