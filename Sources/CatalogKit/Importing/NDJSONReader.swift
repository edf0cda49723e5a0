import CatalogModel

/// NDJSON: one JSON object per line. Values become text (numbers as written, booleans as
/// true/false, null as absent); nested objects and arrays are skipped, except under a field
/// the import reads (its value would be lost without a word), which is refused, as a field
/// given twice is. Blank lines are skipped.
enum NDJSONReader {
    /// Reads a whole input.
    static func read(_ bytes: [UInt8], handle: (Int, (ImportField) -> String?) throws(StoreError) -> Void) throws(StoreError) {
        var line = 1
        try read(bytes, line: &line, handle: handle)
    }

    /// Reads the lines in `bytes`, the input not read yet, numbered from `line` (left at the
    /// next line's number); returns how many bytes they took. A line that `bytes` ends before
    /// its line end is left for the next call, unless `atEnd` says the input ends there too.
    @discardableResult
    static func read(_ bytes: [UInt8], line: inout Int, atEnd: Bool = true,
                     handle: (Int, (ImportField) -> String?) throws(StoreError) -> Void) throws(StoreError) -> Int {
        try objects(bytes, line: &line, atEnd: atEnd) { line, record throws(StoreError) in
            try handle(line) { field in record[field.name] ?? nil }
        }
    }

    /// The objects of the lines in `bytes`, each with its line's number, as `read` reads them.
    private static func objects(_ bytes: [UInt8], line: inout Int, atEnd: Bool,
                                _ body: (Int, [String: String?]) throws(StoreError) -> Void) throws(StoreError) -> Int {
        var start = line == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 10 { end += 1 }
            if end == bytes.count && !atEnd { return start }
            var parser = Parser(bytes: bytes, index: start, end: end, line: line)
            parser.skipSpace()
            if parser.index < end {
                let record = try parser.object()
                parser.skipSpace()
                guard parser.index == end else { throw .invalidInput(line: line, reason: "text after the JSON object") }
                try body(line, record)
            }
            start = end + 1
            line += 1
        }
        return bytes.count
    }

    /// The fields of the objects at the start of `bytes` (the input's first block) that the
    /// import does not read, sorted: a misspelt `titel`, or a `Title` (names are matched as
    /// written). Lines that are not JSON objects end the look.
    static func ignoredFields(_ bytes: [UInt8]) -> [String] {
        var ignored = Set<String>()
        var line = 1
        _ = try? objects(bytes, line: &line, atEnd: false) { line, record throws(StoreError) in
            guard line <= 10_000 else { throw .invalidInput(line: line, reason: "enough lines looked at") }
            ignored.formUnion(record.keys.filter { !Parser.readFields.contains($0) })
        }
        return ignored.sorted()
    }

    struct Parser {
        let bytes: [UInt8]
        var index: Int
        let end: Int
        let line: Int

        /// The fields the import reads.
        static let readFields = Set(ImportField.allCases.map(\.name))

        func fail(_ reason: String) -> StoreError { .invalidInput(line: line, reason: "invalid JSON: \(reason)") }

        mutating func skipSpace() {
            while index < end, [32, 9, 13].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(StoreError) {
            skipSpace()
            guard index < end, bytes[index] == byte else { throw fail("expected \"\(Character(Unicode.Scalar(byte)))\"") }
            index += 1
        }

        mutating func object() throws(StoreError) -> [String: String?] {
            try expect(123)
            var fields: [String: String?] = [:]
            skipSpace()
            if index < end, bytes[index] == 125 { index += 1; return fields }
            while true {
                skipSpace()
                let name = try string()
                try expect(58)
                if Self.readFields.contains(name) {
                    skipSpace()
                    if index < end, bytes[index] == 123 || bytes[index] == 91 {
                        throw .invalidInput(line: line, reason: "\"\(name)\" is \(bytes[index] == 91 ? "an array" : "an object"): it takes text or a number")
                    }
                    if fields[name] != nil { throw .invalidInput(line: line, reason: "\"\(name)\" is given twice") }
                }
                fields[name] = try value()
                skipSpace()
                guard index < end else { throw fail("the object is not closed") }
                if bytes[index] == 44 { index += 1; continue }
                if bytes[index] == 125 { index += 1; return fields }
                throw fail("expected \",\" or \"}\"")
            }
        }

        /// A scalar as text; nil for null and for nested values (skipped).
        mutating func value() throws(StoreError) -> String? {
            skipSpace()
            guard index < end else { throw fail("a value is missing") }
            switch bytes[index] {
            case 34: return try string()
            case 123, 91: try skipNested(); return nil
            default:
                let start = index
                while index < end, ![44, 125, 93, 32, 9, 13].contains(bytes[index]) { index += 1 }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                if word == "null" { return nil }
                if word == "true" || word == "false" || Self.isNumber(word.utf8) { return word }
                throw fail("unexpected \"\(word)\"")
            }
        }

        /// JSON's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (no Infinity, NaN, +1,
        /// 01 or 1., which Double reads).
        static func isNumber(_ text: String.UTF8View) -> Bool {
            var bytes = text[...]
            func digits() -> Int {
                let count = bytes.prefix { (48...57).contains($0) }.count
                bytes = bytes.dropFirst(count)
                return count
            }
            if bytes.first == 45 { bytes = bytes.dropFirst() }
            if bytes.first == 48 { bytes = bytes.dropFirst() } else if digits() == 0 { return false }
            if bytes.first == 46 {
                bytes = bytes.dropFirst()
                if digits() == 0 { return false }
            }
            if bytes.first == 69 || bytes.first == 101 {
                bytes = bytes.dropFirst()
                if bytes.first == 43 || bytes.first == 45 { bytes = bytes.dropFirst() }
                if digits() == 0 { return false }
            }
            return bytes.isEmpty
        }

        mutating func skipNested() throws(StoreError) {
            var depth = 0
            repeat {
                guard index < end else { throw fail("a nested value is not closed") }
                switch bytes[index] {
                case 34: _ = try string(); continue
                case 123, 91: depth += 1
                case 125, 93: depth -= 1
                default: break
                }
                index += 1
            } while depth > 0
        }

        mutating func string() throws(StoreError) -> String {
            guard index < end, bytes[index] == 34 else { throw fail("expected a string") }
            index += 1
            var out: [UInt8] = []
            while index < end {
                let byte = bytes[index]
                index += 1
                if byte == 34 {
                    guard let text = String(validating: out, as: UTF8.self) else { throw .invalidInput(line: line, reason: "not valid UTF-8") }
                    return text
                }
                guard byte == 92 else { out.append(byte); continue }
                guard index < end else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 34, 92, 47: out.append(escape)
                case 98: out.append(8)
                case 102: out.append(12)
                case 110: out.append(10)
                case 114: out.append(13)
                case 116: out.append(9)
                case 117:
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), index + 1 < end, bytes[index] == 92, bytes[index + 1] == 117 {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("a lone surrogate") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw fail("an unknown escape")
                }
            }
            throw fail("a string is not closed")
        }

        mutating func hex4() throws(StoreError) -> UInt32 {
            guard index + 4 <= end, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                throw fail("a bad \\u escape")
            }
            index += 4
            return value
        }
    }
}
