#if canImport(Glibc)
package import Glibc
#elseif canImport(Darwin)
package import Darwin
#endif

/// The time change stamps are measured in: nanoseconds since 1970 (the clock files' times use),
/// so a stamp's time and a reader's compare.
package enum WallClock {
    package static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return nanoseconds(time)
    }

    /// `time` in nanoseconds since 1970, held at Int64's ends past them: a file's time may be
    /// anything its file system stores (ext4 and XFS reach past 2262, FAT and archives give
    /// bogus dates), and a multiplication that overflows would stop the process.
    package static func nanoseconds(_ time: timespec) -> Int64 {
        let (scaled, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return time.tv_sec < 0 ? .min : .max }
        let (sum, past) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
        return past ? .max : sum
    }
}
