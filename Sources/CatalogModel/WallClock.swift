#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time change stamps are measured in: nanoseconds since 1970 (the clock files' times use),
/// so a stamp's time and a reader's compare.
package enum WallClock {
    package static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
