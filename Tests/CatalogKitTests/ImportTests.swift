@testable import CatalogKit
import Foundation
import GRDB
import Testing

@Suite struct ImportTests {
    func parse(_ text: String, _ format: ImportParser.Format) -> Result<[ImportRow], StoreError> {
        Result { () throws(StoreError) in try ImportParser.parse(Array(text.utf8), format: format) }
    }

    @Test func csvWithQuotesAndExtraColumnsParses() throws {
        let csv = [
            "key,width,height,orientation,date,url,title,ignored",
            #"pin-1,400,300,6,2024-05-01T12:30:00Z,https://x/1,"A title, with a comma",zzz"#,
            #""pin ""2""",100.0,200,,2024-05-01,,"two"#,
            #"lines","#,
        ].joined(separator: "\r\n")
        let rows = try parse(csv, .csv).get()
        #expect(rows.count == 2)
        #expect(rows[0] == ImportRow(line: 2, key: "pin-1", width: 400, height: 300, orientation: 6, date: "2024-05-01T12:30:00",
                                     url: "https://x/1", title: "A title, with a comma"))
        #expect(rows[1] == ImportRow(line: 3, key: "pin \"2\"", width: 100, height: 200, orientation: 1, date: "2024-05-01T00:00:00",
                                     url: nil, title: "two\r\nlines")) // CRLF records; a quoted line break is kept
    }

    @Test func ndjsonParses_withEscapesNullsAndNestedValuesSkipped() throws {
        let ndjson = #"""
            {"key":"a\u00e9\ud83d\ude00","width":1.024e3,"height":768,"date":"2024-05-01T23:30:00+02:00","meta":{"x":[1,2,{"y":"}"}]}}

            {"key":"b","width":10,"height":20,"title":null,"orientation":8}
            """#
        let rows = try parse(ndjson, .ndjson).get()
        #expect(rows.map(\.key) == ["aé😀", "b"])
        #expect(rows[0].width == 1024)
        #expect(["1024", "1024.0", "1024.", "1.024e3", "10240e-1", "+1024", "1024.000"].map(ImportParser.wholeNumber) == Array(repeating: 1024, count: 7))
        #expect(["1.5", ".5", "1e-3", "inf", "nan", "0x10", "", "-", "1e", "1.2.3"].allSatisfy { ImportParser.wholeNumber($0) == nil })
        #expect(rows[0].date == "2024-05-01T21:30:00", "converted to UTC")
        #expect(rows[1].line == 3)
        #expect(rows[1].orientation == 8)
        #expect(rows[1].title == nil)
        #expect(ImportParser.sniff(Array("  \n{\"key\":1}".utf8)) == .ndjson)
        #expect(ImportParser.sniff(Array("key,width\n".utf8)) == .csv)
    }

    @Test(arguments: [
        ("key,width,height\na,10,20\nb,0,5\n", 3, "width must be a whole number from 1 to 16777216, got \"0\""),
        ("key,width,height\na,16777216,20\nb,5,16777217\n", 3, "height must be a whole number from 1 to 16777216, got \"16777217\""),
        ("key,width,height\na,10,20\na,1,1\n", 3, "key \"a\" appears twice (first on line 2)"),
        ("key,width,height\na,10\n", 2, "expected 3 fields"),
        ("key,width,height\na,10,2.5\n", 2, "height must be a whole number"),
        ("key,width,height,orientation\na,10,20,9\n", 2, "orientation must be 1 to 8"),
        ("key,width,height,date\na,10,20,yesterday\n", 2, "date must be ISO 8601"),
        ("key,width,height,date\na,10,20,2023-02-29\n", 2, "date must be ISO 8601"),
        ("key,width,height,date\na,10,20,2024-05-01T12:30:00+99:99\n", 2, "date must be ISO 8601"),
        ("key,width,height,date\na,10,20,2024-05-01T12:30:00+24:00\n", 2, "date must be ISO 8601"),
        ("width,height\n10,20\n", 1, "no \"key\" column"),
        ("key,wdth,hieght\n", 1, "no \"width\" column"),
        ("key,width\nk,1\n", 1, "no \"height\" column"),
        ("key,width,height\na,0x10,20\n", 2, "width must be a whole number"),
        // Read from the digits, not a Double, which takes these for whole numbers.
        ("key,width,height\na,2.9999999999999999,20\n", 2, "width must be a whole number from 1 to 16777216, got \"2.9999999999999999\""),
        ("key,width,height\na,10,16777216.0000000001\n", 2, "height must be a whole number"),
        ("key,width,height\na,10,1.0000000000000001e3\n", 2, "height must be a whole number"),
        ("key,width,height\na,10,nan\n", 2, "height must be a whole number"),
        ("key,width,height\n,10,20\n", 2, "key is empty"),
        ("key,width,height\na,,20\n", 2, "width is empty"),
        ("key,width,height\n\"open,10,20\n", 2, "not closed"),
        ("key,width,height,title\na,10,20,nul\u{0}byte\n", 2, "title holds a NUL byte"),
        // Keys are compared byte for byte: "pin " would be an item beside "pin".
        ("key,width,height\npin ,1,1\n", 2, "key \"pin \" begins or ends with a space"),
        ("key,width,height\n\tpin,1,1\n", 2, "begins or ends with a tab"),
        // Other separators, as spreadsheets in some locales write them, said as such.
        ("key;width;height\na;1;1\n", 1, "the header row is one column, \"key;width;height\": its fields are separated by \";\""),
        ("key\twidth\theight\n", 1, "separated by tabs"),
        ("sep=;\nkey;width;height\n", 1, "the file says its fields are separated by \";\" (Excel's sep= line)"),
        ("key,width,height,title,Title\nk,1,1,a,b\n", 1, "the header row names \"title\" twice"),
        // NDJSON in a file named .csv, which names the format.
        ("{\"key\":\"a\",\"width\":1,\"height\":1}\n", 1, "the file looks like NDJSON, read as CSV (a file named .csv is, or --format csv); pass --format ndjson"),
        // A 60th second is a leap second, which only 23:59 UTC has.
        ("key,width,height,date\na,1,1,2024-06-01T00:00:60\n", 2, "date must be ISO 8601"),
        ("key,width,height,date\na,1,1,2024-06-01T23:59:60+01:00\n", 2, "date must be ISO 8601"),
    ])
    func badCSVLinesAreNamedByNumber(_ input: String, line: Int, message: String) {
        guard case .failure(.invalidInput(let badLine, let reason)) = parse(input, .csv) else {
            Issue.record("expected an error on line \(line)")
            return
        }
        #expect(badLine == line)
        #expect(reason.contains(message), "\(reason)")
    }

    /// Inputs for the CSV reader's corners: a quote inside an unquoted field (kept), CRLF
    /// records, records ended by a CR alone (classic Mac OS; a CR inside quotes is kept and
    /// counts a line), a byte-order mark and blank lines, header names in other case and spaces
    /// and a name twice (the first column counts), a quoted field across lines, non-ASCII text,
    /// bytes that are not UTF-8, a NUL byte.
    static let csvCorners: [(bytes: [UInt8], expected: Result<[ImportRow], StoreError>)] = [
        (Array("key,width,height,title\r\nk1,1,2,a\"b\r\nk2,3,4,x\n".utf8),
         .success([ImportRow(line: 2, key: "k1", width: 1, height: 2, title: "a\"b"), ImportRow(line: 3, key: "k2", width: 3, height: 4, title: "x")])),
        (Array("key,width,height,title\rk1,1,2,\"two\rlines\"\rk2,3,4,x\r\r".utf8),
         .success([ImportRow(line: 2, key: "k1", width: 1, height: 2, title: "two\rlines"), ImportRow(line: 4, key: "k2", width: 3, height: 4, title: "x")])),
        (Array("key,width,height\rk1,1,2\rk2,3\r".utf8), .failure(.invalidInput(line: 3, reason: "expected 3 fields as in the header, found 2"))),
        ([0xEF, 0xBB, 0xBF] + Array("key,width,height\n\nk1,1,2\n\n".utf8), .success([ImportRow(line: 3, key: "k1", width: 1, height: 2)])),
        (Array(" Key ,WIDTH,height,Title,note\nk1,1,2,first,second\n".utf8), .success([ImportRow(line: 2, key: "k1", width: 1, height: 2, title: "first")])),
        // A spreadsheet's empty rows (",,,") are skipped as blank lines are; Excel's "sep=," line too.
        (Array("key,width,height,title\r\nk1,1,2,a\r\n,,,\r\n,,,\r\n".utf8), .success([ImportRow(line: 2, key: "k1", width: 1, height: 2, title: "a")])),
        (Array("sep=,\nkey,width,height,date\nk1,1,2,2016-12-31T23:59:60Z\n".utf8),
         .success([ImportRow(line: 3, key: "k1", width: 1, height: 2, date: "2016-12-31T23:59:60")])),
        (Array("key,width,height,title\nk1,1,2,\"quoted, with\nnewline\"\nk2,1,2,ünï\n".utf8),
         .success([ImportRow(line: 2, key: "k1", width: 1, height: 2, title: "quoted, with\nnewline"), ImportRow(line: 4, key: "k2", width: 1, height: 2, title: "ünï")])),
        (Array("key,width,height,title\nk1,1,2,ok\nk2,1,2,".utf8) + [0xC3, 0x28, 10],
         .failure(.invalidInput(line: 3, reason: "the \"title\" field is not valid UTF-8 (a file saved as Latin-1 or Windows-1252? save it as UTF-8)"))),
        (Array("key,width,height,title\nk1,1,2,a\u{0}b\n".utf8), .failure(.invalidInput(line: 2, reason: "title holds a NUL byte"))),
    ]

    /// Reads CSV as an import does, whole or in two pieces cut at `cut`: the first piece's
    /// unfinished record is read again at the start of the second.
    static func readCSV(_ bytes: [UInt8], cut: Int?) -> Result<[ImportRow], StoreError> {
        Result { () throws(StoreError) -> [ImportRow] in
            var reader = CSVReader()
            var rows: [ImportRow] = []
            let handle = { (line: Int, field: (ImportField) -> String?) throws(StoreError) in rows.append(try ImportParser.row(line: line, field)) }
            var rest = bytes
            if let cut {
                let first = Array(bytes[..<cut])
                let used = try reader.read(first, atEnd: false, handle: handle)
                rest = Array(first[used...]) + Array(bytes[cut...])
            }
            try reader.read(rest, atEnd: true, handle: handle)
            try reader.finish()
            return rows
        }
    }

    @Test func csvCorners_readWhole_andCutAtEveryByte_giveTheSameRowsOrError() {
        for (number, corner) in Self.csvCorners.enumerated() {
            #expect(Self.readCSV(corner.bytes, cut: nil) == corner.expected, "input \(number)")
            for cut in 0...corner.bytes.count {
                #expect(Self.readCSV(corner.bytes, cut: cut) == corner.expected, "input \(number) cut at \(cut)")
            }
        }
    }

    @Test(arguments: [
        ("{\"key\":\"a\",\"width\":1,\"height\":1}\n{\"key\":\"b\",\"width\":1}\n", 2, "height is missing"),
        // Given empty is not missing (it was said to be).
        ("{\"key\":\"\",\"width\":1,\"height\":1}\n", 1, "key is empty"),
        ("{\"key\":null,\"width\":1,\"height\":1}\n", 1, "key is missing"),
        ("{\"key\":\"a\",\"width\":1,\"height\":1}\n{\"key\":\"b\" \"width\":1}\n", 2, "invalid JSON"),
        ("{\"key\":\"a\",\"width\":1,\"height\":1} x\n", 1, "text after the JSON object"),
        ("{\"key\":\"a\",\"width\":true,\"height\":1}\n", 1, "width must be a whole number"),
        ("{\"key\":\"a\\u0000b\",\"width\":1,\"height\":1}\n", 1, "key holds a NUL byte"),
        // Numbers as JSON writes them, not as Double reads them.
        ("{\"key\":Infinity,\"width\":1,\"height\":1}\n", 1, "invalid JSON: unexpected \"Infinity\""),
        ("{\"key\":\"a\",\"width\":01,\"height\":1}\n", 1, "invalid JSON: unexpected \"01\""),
        ("{\"key\":\"a\",\"width\":+1,\"height\":1}\n", 1, "invalid JSON: unexpected \"+1\""),
        ("{\"key\":\"a\",\"width\":1.,\"height\":1}\n", 1, "invalid JSON: unexpected \"1.\""),
        ("{\"key\":nan,\"width\":1,\"height\":1}\n", 1, "invalid JSON: unexpected \"nan\""),
        // A field the import reads, as a nested value or twice: refused, not skipped or the last taken.
        ("{\"key\":\"a\",\"width\":1,\"height\":1}\n{\"key\":\"n\",\"width\":10,\"height\":10,\"date\":[\"2024-05-01\"]}\n", 2,
         "\"date\" is an array: it takes text or a number"),
        ("{\"key\":\"a\",\"width\":{\"px\":10},\"height\":1}\n", 1, "\"width\" is an object"),
        ("{\"key\":\"a\",\"width\":1,\"height\":1,\"date\":\"2024-01-01\",\"date\":\"2025-01-01\"}\n", 1, "\"date\" is given twice"),
    ])
    func badNDJSONLinesAreNamedByNumber(_ input: String, line: Int, message: String) {
        guard case .failure(.invalidInput(let badLine, let reason)) = parse(input, .ndjson) else {
            Issue.record("expected an error on line \(line)")
            return
        }
        #expect(badLine == line)
        #expect(reason.contains(message), "\(reason)")
    }

    @Test func jsonNumbersInEveryFormJSONAllows_areRead() throws {
        let rows = try parse(#"{"key":"a","width":-0.5e1,"height":1E+2}"# + "\n" + #"{"key":"b","width":0.0e0,"height":10.50e1}"#, .ndjson)
        guard case .failure(.invalidInput(1, let reason)) = rows else { Issue.record("\(rows)"); return }
        #expect(reason.contains("width must be a whole number") && reason.contains("-0.5e1"), "read as a number, refused as a width")
        #expect(try parse(#"{"key":"a","width":1E+2,"height":0.1e3}"#, .ndjson).get().map { [$0.width, $0.height] } == [[100, 100]])
    }

    /// What is not text this reads, said in words on line 1: UTF-16, gzip, a workbook, an image
    /// (whole or cut short: "field 1 is not valid UTF-8" sent a user looking for an encoding).
    @Test func inputsThatAreNotUTF8TextAreNamed() throws {
        let png = try [UInt8](Library.fixture("rgb.png"))
        let jpeg = try [UInt8](Library.fixture("baseline.jpg"))
        let inputs: [([UInt8], String)] = [
            (png, "the input is a PNG image, not a list of items: `catalog scan FOLDER` reads images"),
            (Array(jpeg.prefix(40)), "the input is a JPEG image, not a list of items"),
            ([0xFF, 0xFE] + Array("key,width,height\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, "the input is UTF-16"),
            ([0xFE, 0xFF] + Array("key".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, "the input is UTF-16"),
            ([0x1F, 0x8B, 0x08, 0x00], "the input is gzip-compressed: decompress it first (gunzip -c FILE | catalog import -)"),
            ([0x50, 0x4B, 0x03, 0x04, 0x14], "a ZIP archive (an .xlsx workbook?)"),
            // Without a byte order mark (they were said to have no "key" column), UTF-32 with one
            // (the UTF-16 advice made it garbage), and a JSON export (an array, not NDJSON).
            (Array("key,width,height\np,1,1\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, "it is UTF-16LE without a byte order mark"),
            (Array("key,width,height\np,1,1\n".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, "iconv -f UTF-16BE -t UTF-8"),
            (Array("key,width,height\n".unicodeScalars).flatMap { [UInt8($0.value), 0, 0, 0] }, "it is UTF-32LE without"),
            ([0xFF, 0xFE, 0, 0] + Array("key,width".unicodeScalars).flatMap { [UInt8($0.value), 0, 0, 0] }, "the input is UTF-32 (it starts with UTF-32's"),
            (Array(#"[{"key":"n4","width":10,"height":20}]"#.utf8) + [10], "the input is a JSON array; catalog import reads NDJSON, one object a line: jq -c '.[]'"),
            (Array("\n[\n  {\"key\": \"n4\"}\n]\n".utf8), "the input is a JSON array"),
        ]
        for (bytes, message) in inputs {
            for format in ImportParser.Format.allCases {
                let result = Result { () throws(StoreError) in try ImportParser.parse(bytes, format: format) }
                guard case .failure(.invalidInput(1, let reason)) = result else { Issue.record("\(result)"); continue }
                #expect(reason.contains(message), "\(reason)")
            }
        }
    }

    /// A header's columns the import does not read are named, as written, for a warning: a
    /// misspelt "titel" would otherwise leave every title empty without a word.
    @Test func aHeadersColumnsNotRead_areNamedAsWritten() {
        #expect(CSVReader.ignoredColumns(Array("\u{FEFF} Key ,WIDTH,height,Orientaton,board, titel ,\r\nk,1,1,6,b,t,\r\n".utf8))
                == ["Orientaton", "board", " titel "])
        #expect(CSVReader.ignoredColumns(Array("key,width,height,orientation,date,url,title\n".utf8)).isEmpty)
        #expect(CSVReader.ignoredColumns(Array("sep=,\nkey,width,height,x\n".utf8)) == ["x"])
        #expect(CSVReader.ignoredColumns([]).isEmpty)
        // NDJSON's fields too (they were dropped without a word), as written: names are matched
        // as they are, so "Title" is not "title".
        let ndjson = #"{"key":"a","width":1,"height":2,"titel":"x"}"# + "\n" + #"{"key":"b","width":1,"height":2,"Title":"y","meta":{"z":1}}"# + "\n"
        #expect(NDJSONReader.ignoredFields(Array(ndjson.utf8)) == ["Title", "meta", "titel"])
        #expect(NDJSONReader.ignoredFields(Array(#"{"key":"a","width":1,"height":2,"title":"t","url":null}"#.utf8 + [10])).isEmpty)
    }

    /// Through the command: the warning names NDJSON's ignored fields as fields.
    @Test func anNDJSONImportWarnsOfTheFieldsItDoesNotRead() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let input = try library.write("pins.ndjson", Data((#"{"key":"zz","width":1,"height":2,"titel":"x"}"# + "\n").utf8))
        let result = try BuiltTool.run(["import", "--db", library.catalogPath, input])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("warning: ignored field \"titel\": the fields read are key, width, height"), "\(result.stderr)")
    }

    /// A header of 20,000 unknown columns made a 189 KB warning line, and a column's name went to
    /// the terminal as written, escape sequences included: the warning names ten, escaped, and
    /// counts the rest.
    @Test func theWarningNamesTenIgnoredColumns_escaped_andCountsTheRest() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let header = ["key", "width", "height", "x\u{1B}[31mred"] + (1...19_999).map { "c\($0)" }
        let row = ["k", "1", "2"] + Array(repeating: "", count: header.count - 3)
        let input = try library.write("wide.csv", Data((header.joined(separator: ",") + "\n" + row.joined(separator: ",") + "\n").utf8))
        let result = try BuiltTool.run(["import", "--db", library.catalogPath, input])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(#"warning: ignored columns "x\x1b[31mred", "c1", "c2", "#), "\(result.stderr)")
        #expect(result.stderr.contains(#""c9" and 19990 more: the columns read are key"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}") && result.stderr.utf8.count < 400, "\(result.stderr.utf8.count) bytes")
    }

    /// An error quotes what it was given: a downloaded CSV's escape sequence (one that clears
    /// the screen) reached the terminal as it was, and a catalog's name in `stats` too.
    @Test func controlCharactersInMessagesAndStatsAreEscaped() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let input = try library.write("screen.csv", Data("key,width,height\nk,\u{1B}[2J,1\n".utf8))
        let refused = try BuiltTool.run(["import", "--db", library.catalogPath, input])
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: line 2: width must be a whole number from 1 to 16777216, got \"\\x1b[2J\"\n", "\(refused.stderr)")
        let named = library.root.appendingPathComponent("a\u{1B}[31m\u{202E}.sqlite").path
        #expect(try BuiltTool.run(["import", "--db", named, try library.write("ok.csv", Data("key,width,height\nk,1,1\n".utf8))]).status == 0)
        let stats = String(decoding: try BuiltTool.run(["stats", "--db", named]).stdout, as: UTF8.self)
        #expect(stats.hasPrefix("catalog     \(library.root.path)/a\\x1b[31m") && !stats.contains("\u{1B}") && !stats.contains("\u{202E}"), "\(stats)")
    }
}
