#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// How many files this process may have open (RLIMIT_NOFILE). The soft limit is raised to the
/// hard one at start, as servers do: its usual 1024 is a relic of select(2), and a scan (a handle
/// per folder in flight and per file probed), a server (one per connection, per thumbnail) and
/// the threads' event loops run out of it long before the machine does. Too few to start with
/// is refused in words, not met later as a crash inside a library.
enum FileLimit {
    /// Fewer than this, and catalog does not start.
    static let least = 32
    /// The limit after `raise()`, which main calls first.
    nonisolated(unsafe) private(set) static var current = Int.max

    /// Raises the soft limit as far as the hard one allows; returns the limit now.
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            // An unlimited hard limit is not a count the kernel takes (nr_open bounds it).
            raised.rlim_cur = limit.rlim_max == rlim_t.max ? max(limit.rlim_cur, 1 << 20) : limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        current = limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
        return current
    }
}
