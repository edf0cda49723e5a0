import CatalogModel

/// RFC 4180 CSV: a header row names the columns (key, width and height among them); fields may
/// be quoted ("" is a quote inside a quoted field, which may span lines). Lines end with LF,
/// CRLF or a CR alone. Blank lines are skipped. Bytes must be UTF-8.
///
/// Reads the input a piece at a time, leaving a record cut by a piece's end for the next
/// piece, so an import of any length holds one piece at a time.
struct CSVReader {
    private var header: [String]? = nil
    /// The header's names as written (untrimmed, their case kept).
    private(set) var headerAsWritten: [String]? = nil
    /// The column of each field the import reads (by `ImportField.rawValue`), found once in the
    /// header: a row then costs no lookup by name.
    private var columns: [Int?] = []
    /// The line the next record starts on.
    private(set) var line = 1

    /// Reads a whole input.
    static func read(_ bytes: [UInt8], handle: (Int, (ImportField) -> String?) throws(StoreError) -> Void) throws(StoreError) {
        var reader = CSVReader()
        try reader.read(bytes, handle: handle)
        try reader.finish()
    }

    /// The columns of the header at the start of `bytes` that the import does not read, as
    /// the header names them; empty when there is no header there.
    static func ignoredColumns(_ bytes: [UInt8]) -> [String] {
        var reader = CSVReader()
        _ = try? reader.read(bytes, atEnd: false) { _, _ throws(StoreError) in
            throw .invalidInput(line: 0, reason: "the header is read") // stops at the first row
        }
        let names = reader.headerAsWritten ?? []
        let read = Set(ImportField.allCases.map(\.name))
        return names.filter { !$0.trimmingSpaces().isEmpty && !read.contains($0.trimmingSpaces().lowercased()) }
    }

    /// Throws if the input had no header row.
    func finish() throws(StoreError) {
        if header == nil { throw .invalidInput(line: 1, reason: "the input is empty: a CSV import needs a header row") }
    }

    /// Reads the records in `bytes`, the input not read yet; returns how many bytes they took.
    /// A record that `bytes` ends before its line end is left for the next call, which starts
    /// with it, unless `atEnd` says the input ends there too.
    @discardableResult
    mutating func read(_ bytes: [UInt8], atEnd: Bool = true,
                       handle: (Int, (ImportField) -> String?) throws(StoreError) -> Void) throws(StoreError) -> Int {
        var index = line == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = self.line
        defer { self.line = line }
        while index < bytes.count {
            let recordStart = index
            let recordLine = line
            var ended = false
            var fields: [String] = []
            var field: [UInt8] = []
            var quoted = false
            var atFieldStart = true
            recordLoop: while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == 34 {
                        if index < bytes.count, bytes[index] == 34 { field.append(34); index += 1 } else { quoted = false }
                    } else {
                        if byte == 10 || (byte == 13 && (index == bytes.count || bytes[index] != 10)) { line += 1 }
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case 34 where atFieldStart:
                    quoted = true
                    atFieldStart = false
                case 44:
                    guard let text = Self.text(field) else { throw notUTF8(line: recordLine, column: fields.count) }
                    fields.append(text)
                    field.removeAll(keepingCapacity: true)
                    atFieldStart = true
                case 10:
                    line += 1
                    ended = true
                    break recordLoop
                case 13 where index < bytes.count && bytes[index] == 10:
                    continue // CRLF: the LF ends the record
                case 13 where index < bytes.count || atEnd:
                    // A CR alone ends a line too: classic Mac OS's line end, which Excel's "CSV
                    // (Macintosh)" still writes. (A CR at a piece's end waits for the next piece.)
                    line += 1
                    ended = true
                    break recordLoop
                case 13:
                    break recordLoop
                default:
                    // The run of plain bytes this one starts, appended at once: up to a comma, a
                    // quote, a line end or a carriage return, each left to the cases above.
                    var end = index
                    while end < bytes.count, bytes[end] != 44, bytes[end] != 10, bytes[end] != 13, bytes[end] != 34 { end += 1 }
                    field.append(contentsOf: bytes[(index - 1)..<end])
                    index = end
                    atFieldStart = false
                }
            }
            if !ended && !atEnd {
                line = recordLine
                return recordStart
            }
            if quoted { throw .invalidInput(line: recordLine, reason: "a quoted field is not closed") }
            guard let text = Self.text(field) else { throw notUTF8(line: recordLine, column: fields.count) }
            fields.append(text)
            // A blank line, or a row of empty fields (",,,": the formatted empty rows a
            // spreadsheet exports after the last one).
            if fields.allSatisfy(\.isEmpty) { continue }
            guard let names = header else {
                // Excel's hint line: "sep=," names the comma, which this reads anyway.
                if fields == ["sep=", ""] { continue } // "sep=," reads as the field "sep=" and an empty one
                if fields.count == 1 && fields[0].hasPrefix("sep=") && fields[0].count == 5 {
                    throw .invalidInput(line: recordLine, reason: "the file says its fields are separated by \"\(fields[0].dropFirst(4))\" (Excel's sep= line): catalog import reads CSV separated by commas")
                }
                let names = fields.map { $0.trimmingSpaces().lowercased() }
                // Checked here, not at the first row: a header of misspelt names and no rows is no import.
                for required in [ImportField.key, .width, .height] where !names.contains(required.name) {
                    if names.count == 1, let separator = [";", "\t", "|"].first(where: { names[0].contains($0) }) {
                        throw .invalidInput(line: recordLine, reason: "the header row is one column, \"\(fields[0])\": its fields are separated by "
                            + (separator == "\t" ? "tabs" : "\"\(separator)\"") + ", and catalog import reads CSV separated by commas")
                    }
                    if fields[0].trimmingSpaces().hasPrefix("{") { // NDJSON in a file named .csv
                        throw .invalidInput(line: recordLine, reason: "the header row has no \"\(required.name)\" column: the line is a JSON object, "
                            + "so the file looks like NDJSON, read as CSV (a file named .csv is, or --format csv); pass --format ndjson")
                    }
                    throw .invalidInput(line: recordLine, reason: "the header row has no \"\(required.name)\" column")
                }
                for field in ImportField.allCases where names.filter({ $0 == field.name }).count > 1 {
                    throw .invalidInput(line: recordLine, reason: "the header row names \"\(field.name)\" twice")
                }
                header = names
                headerAsWritten = fields
                columns = ImportField.allCases.map { field in names.firstIndex(of: field.name) }
                continue
            }
            guard fields.count == names.count else {
                throw .invalidInput(line: recordLine, reason: "expected \(names.count) fields as in the header, found \(fields.count)")
            }
            let columns = self.columns
            try handle(recordLine) { field in columns[field.rawValue].map { fields[$0] } }
        }
        return bytes.count
    }

    /// A field's text; nil when it is not UTF-8.
    private static func text(_ bytes: [UInt8]) -> String? {
        // ASCII, nearly every field, is valid as it is; `String(validating:)` is generic and
        // costs a metadata lookup per call.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The refusal of a field that is not UTF-8, naming its column when the header did.
    private func notUTF8(line: Int, column: Int) -> StoreError {
        let name = header.flatMap { column < $0.count ? "the \"\($0[column])\" field" : nil } ?? "field \(column + 1)"
        return .invalidInput(line: line, reason: "\(name) is not valid UTF-8 (a file saved as Latin-1 or Windows-1252? save it as UTF-8)")
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
