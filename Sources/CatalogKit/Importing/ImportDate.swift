import ImageProbe

/// ISO 8601 dates from imports, normalized to the catalog's `YYYY-MM-DDTHH:MM:SS` (UTC when
/// the input names a zone, as written otherwise, like EXIF dates).
enum ImportDate {
    static func normalize(_ text: String) -> String? {
        let b = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let year = digits(0..<4), b.count >= 10, b[4] == 45, let month = digits(5..<7), b[7] == 45,
              let day = digits(8..<10) else { return nil }
        var (hour, minute, second) = (0, 0, 0)
        var index = 10
        if b.count > 10 {
            guard b[10] == 84 || b[10] == 32, let h = digits(11..<13), b.count > 13, b[13] == 58, let m = digits(14..<16) else { return nil }
            (hour, minute) = (h, m)
            index = 16
            if index < b.count, b[index] == 58 {
                guard let s = digits(17..<19) else { return nil }
                second = s
                index = 19
                if index < b.count, b[index] == 46 || b[index] == 44 { // fraction: dropped
                    index += 1
                    let start = index
                    while index < b.count, (48...57).contains(b[index]) { index += 1 }
                    guard index > start else { return nil }
                }
            }
        }
        var offsetMinutes = 0
        if index < b.count {
            if b[index] == 90, index + 1 == b.count { // Z
                index += 1
            } else if b[index] == 43 || b[index] == 45, let h = digits((index + 1)..<(index + 3)) {
                var m = 0
                if index + 3 < b.count {
                    let minuteStart = b[index + 3] == 58 ? index + 4 : index + 3
                    guard let value = digits(minuteStart..<(minuteStart + 2)), minuteStart + 2 == b.count else { return nil }
                    m = value
                } else if index + 3 != b.count {
                    return nil
                }
                // ISO 8601 offsets run to 23:59 (real zones span -12:00 to +14:00); +99:99 is no zone.
                guard h <= 23, m <= 59 else { return nil }
                offsetMinutes = (h * 60 + m) * (b[index] == 45 ? -1 : 1)
                index = b.count
            } else {
                return nil
            }
        }
        guard index == b.count, let local = CaptureDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return local.inUTC(offsetMinutes: offsetMinutes)?.description
    }
}
