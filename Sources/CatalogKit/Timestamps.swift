#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 text for the catalog's dates, without Foundation's formatters (a scan formats
/// one per file).
enum Timestamps {
    /// `YYYY-MM-DDTHH:MM:SS` in UTC for seconds since 1970.
    static func iso8601(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    static func now() -> String {
        iso8601(secondsSince1970: time(nil))
    }
}
