import ImageProbe
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 text for the catalog's dates, without Foundation's formatters (a scan formats
/// one per file).
enum Timestamps {
    /// `YYYY-MM-DDTHH:MM:SS` in UTC for seconds since 1970, held to years 1 to 9999 (a file
    /// time past either end, which some filesystems keep, is the nearest end, not 1970).
    static func iso8601(secondsSince1970 seconds: Int) -> String {
        let first = -62_135_596_800, last = 253_402_300_799 // 0001-01-01T00:00:00, 9999-12-31T23:59:59
        var time = time_t(min(max(seconds, first), last))
        var parts = tm()
        gmtime_r(&time, &parts)
        let date = CaptureDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                               hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
        return date?.description ?? "1970-01-01T00:00:00"
    }

    /// Seconds since `start`, as a Double.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func now() -> String {
        iso8601(secondsSince1970: time(nil))
    }
}
