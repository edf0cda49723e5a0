/// When a photo was taken: a date and time with no time zone attached, in UTC when the image
/// said its zone (an EXIF OffsetTime* tag; `inUTC(offsetMinutes:)`), else as its camera's clock read.
///
/// Most EXIF dates carry no zone, so this is deliberately not a `Date`: converting would
/// invent one. Dates order chronologically.
public struct CaptureDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    /// Reads an EXIF date, `"YYYY:MM:DD HH:MM:SS"`; `nil` for placeholders such as
    /// `"0000:00:00 00:00:00"` and for out-of-range fields.
    public init?(exif text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// A date from its fields; `nil` when a field is out of range (a leap second, 60, is allowed).
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CaptureDate.days(inMonth: month, of: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    /// ISO 8601 without a zone: `2024-05-01T12:30:00`. Sorts as the dates do.
    public var description: String {
        // Written into the string's own 19 bytes (years are 1 to 9999): a scan formats one or
        // two dates per file, and interpolation allocated a dozen strings for each.
        return String(unsafeUninitializedCapacity: 19) { bytes in
            func put(_ value: Int, at offset: Int, width: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(48 + rest % 10)
                    rest /= 10
                }
            }
            put(year, at: 0, width: 4)
            bytes[4] = 45 // -
            put(month, at: 5, width: 2)
            bytes[7] = 45
            put(day, at: 8, width: 2)
            bytes[10] = 84 // T
            put(hour, at: 11, width: 2)
            bytes[13] = 58 // :
            put(minute, at: 14, width: 2)
            bytes[16] = 58
            put(second, at: 17, width: 2)
            return 19
        }
    }

    /// This date, a local time at `offsetMinutes` east of UTC, in UTC (carrying through days,
    /// months and years); nil when that falls outside years 1 to 9999, or a 60th second
    /// (a leap second) is not at 23:59 UTC.
    public func inUTC(offsetMinutes: Int) -> CaptureDate? {
        var total = ((Self.daysBeforeEpochDay(year, month, day) * 24 + hour) * 60 + minute) - offsetMinutes
        let minutes = ((total % 1440) + 1440) % 1440
        total = (total - minutes) / 1440
        if second == 60 && minutes != 23 * 60 + 59 { return nil }
        let (y, mo, d) = Self.civil(fromDays: total)
        return CaptureDate(year: y, month: mo, day: d, hour: minutes / 60, minute: minutes % 60, second: second)
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    static func daysBeforeEpochDay(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    public static func < (lhs: CaptureDate, rhs: CaptureDate) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }

    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
