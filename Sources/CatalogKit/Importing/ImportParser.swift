import CatalogModel
import ImageProbe

/// A field an import reads, named as in a CSV header or an NDJSON object.
enum ImportField: Int, CaseIterable {
    case key, width, height, orientation, date, url, title

    var name: String {
        switch self {
        case .key: "key"
        case .width: "width"
        case .height: "height"
        case .orientation: "orientation"
        case .date: "date"
        case .url: "url"
        case .title: "title"
        }
    }
}

/// Reads `catalog import` input: CSV with a header row, or NDJSON (one JSON object per line).
///
/// Fields: key (required, unique), width and height (required, whole numbers > 0),
/// orientation (1 to 8, default 1), date (ISO 8601: `2024-05-01`, `2024-05-01T12:30:00`,
/// optionally with fractions and `Z` or `±HH:MM`, which is converted to UTC), url, title.
/// Other fields are ignored. The first bad line stops the import with its line number.
public enum ImportParser {
    public enum Format: String, Sendable, CaseIterable {
        case csv
        case ndjson
    }

    /// NDJSON when the first non-blank byte is "{", else CSV.
    package static func sniff(_ bytes: [UInt8]) -> Format {
        bytes.first { ![32, 9, 10, 13, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{") ? .ndjson : .csv
    }

    /// Why an input that starts with `bytes` cannot be text this reads (UTF-16, compressed),
    /// in words; nil when it may be.
    package static func unreadableInput(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) || bytes.starts(with: [0, 0, 0xFE, 0xFF]) {
            return "the input is UTF-32 (it starts with UTF-32's byte order mark): save it as UTF-8, or convert it with iconv -f UTF-32 -t UTF-8"
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return "the input is UTF-16 (it starts with UTF-16's byte order mark): save it as UTF-8, or convert it with iconv -f UTF-16 -t UTF-8"
        }
        if let wide = wideText(bytes) {
            return "the input has a NUL byte between its characters: it is \(wide) without a byte order mark, not UTF-8; "
                + "convert it with iconv -f \(wide) -t UTF-8"
        }
        let start = bytes.drop { [32, 9, 10, 13].contains($0) }
        if start.first == UInt8(ascii: "["), start.dropFirst().first(where: { ![32, 9, 10, 13].contains($0) }).map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "]") }) ?? true {
            return "the input is a JSON array; catalog import reads NDJSON, one object a line: jq -c '.[]' FILE | catalog import -"
        }
        if bytes.starts(with: [0x1F, 0x8B]) { return "the input is gzip-compressed: decompress it first (gunzip -c FILE | catalog import -)" }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "the input is a ZIP archive (an .xlsx workbook?): export it as CSV" }
        if let image = imageFormat(bytes) {
            return "the input is a \(image.rawValue.uppercased()) image, not a list of items: `catalog scan FOLDER` reads images, `catalog import` CSV or NDJSON"
        }
        return nil
    }

    /// The encoding of text in 16 or 32 bits a character that `bytes` start without a byte order
    /// mark ("UTF-16LE"...), told by where its first ASCII characters' zero bytes are; nil when
    /// the first bytes are not such text.
    private static func wideText(_ bytes: [UInt8]) -> String? {
        let head = Array(bytes.prefix(64))
        guard head.count >= 8, head.contains(0) else { return nil }
        func zeros(_ width: Int, at offsets: [Int]) -> Bool {
            stride(from: 0, to: head.count - width + 1, by: width).allSatisfy { unit in
                offsets.allSatisfy { head[unit + $0] == 0 } && head[unit + (offsets.contains(0) ? width - 1 : 0)] != 0
            }
        }
        if zeros(4, at: [1, 2, 3]) { return "UTF-32LE" }
        if zeros(4, at: [0, 1, 2]) { return "UTF-32BE" }
        if zeros(2, at: [1]) { return "UTF-16LE" }
        if zeros(2, at: [0]) { return "UTF-16BE" }
        return nil
    }

    /// The format of an image that `bytes` start (whole, cut short or broken), if they do.
    private static func imageFormat(_ bytes: [UInt8]) -> ImageFormat? {
        do throws(ImageProbeError) {
            return try ImageProbe.probe(bytes: bytes)?.format
        } catch {
            switch error {
            case .truncated(let format), .corruptHeader(let format, _), .badDimensions(let format, _): return format
            case .unreadable, .notARegularFile, .empty: return nil
            }
        }
    }

    package static func parse(_ bytes: [UInt8], format: Format) throws(StoreError) -> [ImportRow] {
        if let reason = unreadableInput(bytes) { throw .invalidInput(line: 1, reason: reason) }
        var rows: [ImportRow] = []
        var firstLines: [String: Int] = [:]
        let accept = { (row: ImportRow) throws(StoreError) in
            if let first = firstLines.updateValue(row.line, forKey: row.key) {
                throw .invalidInput(line: row.line, reason: repeatedKey(row.key) + firstLine(first))
            }
            rows.append(row)
        }
        switch format {
        case .csv: try CSVReader.read(bytes) { line, fields throws(StoreError) in try accept(try row(line: line, fields)) }
        case .ndjson: try NDJSONReader.read(bytes) { line, fields throws(StoreError) in try accept(try row(line: line, fields)) }
        }
        return rows
    }

    /// Why a row is refused whose key a row before it gave, as both stores say it.
    static func repeatedKey(_ key: String) -> String {
        "key \"\(key)\" appears twice"
    }

    /// What `repeatedKey` is followed by where the line of the key's first row is known.
    static func firstLine(_ line: Int) -> String {
        " (first on line \(line))"
    }

    /// One row from its fields (nil: absent or null).
    static func row(line: Int, _ field: (ImportField) -> String?) throws(StoreError) -> ImportRow {
        // A NUL byte is refused here, as PostgreSQL refuses it in text, so both stores take the same input.
        func value(_ name: ImportField) throws(StoreError) -> String? {
            guard let text = field(name), !text.isEmpty else { return nil }
            if text.utf8.contains(0) { throw .invalidInput(line: line, reason: "\(name.name) holds a NUL byte") }
            return text
        }
        // A field given empty ("" in JSON, nothing between two commas) is said to be empty, not missing.
        func absent(_ name: ImportField) -> StoreError {
            .invalidInput(line: line, reason: "\(name.name) is \(field(name) == nil ? "missing" : "empty")")
        }
        // Sides as a scanned image's may be (both stores take them; PostgreSQL's integer stops at 2^31).
        func side(_ name: ImportField) throws(StoreError) -> Int {
            guard let text = try value(name) else { throw absent(name) }
            guard let number = wholeNumber(text), (1...ImageProbe.maximumSide).contains(number) else {
                throw .invalidInput(line: line, reason: "\(name.name) must be a whole number from 1 to \(ImageProbe.maximumSide), got \"\(text)\"")
            }
            return number
        }
        guard let key = try value(.key) else { throw absent(.key) }
        // Keys are compared byte for byte: "pin" and "pin " would be two items.
        if let end = [key.unicodeScalars.first!, key.unicodeScalars.last!].first(where: { $0 == " " || $0 == "\t" }) {
            throw .invalidInput(line: line, reason: "key \"\(key)\" begins or ends with a \(end == " " ? "space" : "tab")")
        }
        var orientation = 1
        if let text = try value(.orientation) {
            guard let number = wholeNumber(text), (1...8).contains(number) else {
                throw .invalidInput(line: line, reason: "orientation must be 1 to 8, got \"\(text)\"")
            }
            orientation = number
        }
        var date: String? = nil
        if let text = try value(.date) {
            guard let normalized = ImportDate.normalize(text) else {
                throw .invalidInput(line: line, reason: "date must be ISO 8601 (2024-05-01 or 2024-05-01T12:30:00Z), got \"\(text)\"")
            }
            date = normalized
        }
        return ImportRow(line: line, key: key, width: try side(.width), height: try side(.height),
                         orientation: orientation, date: date, url: try value(.url), title: try value(.title))
    }

    /// "1024", "1024.0" and JSON's 1.024e3 are 1024; anything fractional is not a whole number,
    /// nor is hexadecimal ("0x10", which Double would read as 16), "inf" or "nan".
    /// Read from the decimal digits as written, not through a Double, which takes
    /// 2.9999999999999999 for 3.
    static func wholeNumber(_ text: String) -> Int? {
        if let number = Int(text) { return number }
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == 43 || sign == 45 { negative = sign == 45; bytes = bytes.dropFirst() } // + -
        let isDigit = { (byte: UInt8) in (48...57).contains(byte) }
        let whole = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(whole.count)
        var fraction = ArraySlice<UInt8>()
        if bytes.first == 46 { // .
            fraction = bytes.dropFirst().prefix(while: isDigit)
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        var exponent = 0
        if let e = bytes.first, e == 69 || e == 101 { // E e
            guard let value = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)), abs(value) < 100 else { return nil }
            exponent = value
            bytes = []
        }
        guard bytes.isEmpty, !(whole.isEmpty && fraction.isEmpty) else { return nil }
        // The digits, and where the point falls among them once the exponent has moved it.
        let digits = Array(whole) + Array(fraction)
        let point = whole.count + exponent
        guard digits.dropFirst(max(0, point)).allSatisfy({ $0 == 48 }) else { return nil } // a fraction that is not 0
        var number = 0
        for index in 0..<max(0, point) {
            number = number * 10 + (index < digits.count ? Int(digits[index] - 48) : 0)
            if number >= 1_000_000_000_000_000 { return nil }
        }
        return negative ? -number : number
    }
}
