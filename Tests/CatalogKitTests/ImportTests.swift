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

    @Test(arguments: Backend.allCases) func importingAFileUpsertsIntoTheCatalog_andABadFileChangesNothing(_ backend: Backend) throws {
        let library = try Library(backend)
        let good = try library.write("pins.csv", Data("key,width,height\np1,10,20\np2,30,40\n".utf8))
        let store = try library.catalog()
        let first = try store.importItems(from: good)
        #expect((first.added, first.updated) == (2, 0))
        let again = try library.write("more.ndjson", Data("{\"key\":\"p2\",\"width\":5,\"height\":6}\n{\"key\":\"p3\",\"width\":7,\"height\":8}\n".utf8))
        let second = try store.importItems(from: again)
        #expect((second.added, second.updated) == (1, 1))
        let generation = try store.generation()
        let bad = try library.write("bad.csv", Data("key,width,height\np4,1,1\np5,1,-1\n".utf8))
        #expect(throws: StoreError.invalidInput(line: 3, reason: "height must be a whole number from 1 to 16777216, got \"-1\"")) {
            try store.importItems(from: bad)
        }
        #expect(try store.items(order: .path).map { String(decoding: $0.key, as: UTF8.self) } == ["p1", "p2", "p3"])
        #expect(try store.generation() == generation)
    }

    /// Into an empty catalog, keys that come twice refuse the import at the first line that
    /// repeats one (not the first key repeated): on PostgreSQL, which copies the rows straight
    /// into the items, they are found only when the key index is made after the copy, and the
    /// line worked out from the item's id; the whole import is rolled back all the same. The
    /// catalog stays empty, and the same rows without the repeats import, keys unique.
    @Test(arguments: Backend.allCases) func intoAnEmptyCatalog_keysTwiceRefuseTheImportAtTheFirstRepeat(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let rows = PagerTests.importRows(500)
        var twice = rows
        twice[300].key = rows[10].key // the first key repeated ...
        twice[200].key = rows[20].key // ... repeated later than this one
        let generation = try catalog.generation()
        #expect(throws: StoreError.invalidInput(line: rows[200].line, reason: "key \"\(rows[20].key)\" appears twice (first on line \(rows[20].line))")) {
            try catalog.importItems(twice)
        }
        #expect(try catalog.items(order: .path).isEmpty)
        #expect(try catalog.generation() == generation)
        #expect(try ImportedOrderTests.importsCut(catalog) == 0, "a refused import's order data is not counted as cut")
        #expect(try catalog.importItems(rows).added == 500)
        #expect(try ImportedOrderTests.importsCut(catalog) == 1, "the next import cuts its order data from its rows")
        try OrderDataTests.expectCurrent(catalog, "after a refused import")
        #expect(Set(try catalog.items(order: .path).map(\.id)) == Set(1...500), "the ids the refused import would have taken, as on SQLite")
        #expect(throws: StoreError.invalidInput(line: 3, reason: "key \"\(rows[0].key)\" appears twice (first on line \(rows[0].line))")) {
            try catalog.importItems([rows[0], ImportRow(line: 3, key: rows[0].key, width: 1, height: 1, orientation: 1)])
        }
        let again = try catalog.importItems(rows.map { var row = $0; row.width += 1; return row })
        #expect((again.added, again.updated) == (0, 500), "each key one item: the key index is back")

        // Records over several lines before the repeat, in a file: the line is the record's first.
        // And a line the parser refuses deep in the file, once PostgreSQL has copied rows before it.
        let other = try Library(backend)
        for (name, text) in [("twice.csv", Self.longCSV(rows: 30_000, repeatKeyAt: 25_000)), ("bad.csv", Self.longCSV(rows: 30_000, badRecord: 29_000))] {
            guard case .failure(let expected) = parse(text, .csv), case .invalidInput(let line, _) = expected else {
                Issue.record("a whole read refuses \(name) too")
                continue
            }
            #expect(line > 25_000 + 2 + 3_000, "\(name): past the lines of the records over two")
            #expect(throws: expected) { try other.catalog().importItems(from: try other.write(name, Data(text.utf8))) }
            #expect(try other.catalog().items(order: .path).isEmpty)
        }
        _ = try other.catalog().importItems(from: try other.write("good.csv", Data(Self.longCSV(rows: 2_000).utf8)))
        #expect(Set(try other.catalog().items(order: .path).map(\.id)) == Set(1...2_000), "no id taken by the refused imports")
    }

    /// A CSV of several MiB, read in pieces cut where records end: quoted titles holding commas,
    /// doubled quotes and line breaks land across the cuts.
    static func longCSV(rows: Int, badRecord: Int? = nil, repeatKeyAt: Int? = nil) -> String {
        var text = "key,width,height,orientation,date,url,title\n"
        for index in 0..<rows {
            let key = index == repeatKeyAt ? "pin-0" : "pin-\(index)"
            let width = index == badRecord ? "wide" : "\(100 + index % 900)"
            let title = switch index % 7 {
            case 0: "\"Pin \(index), with a comma\""
            case 3: "\"two\nlines, \"\"quoted\"\" \(index)\""
            default: "plain title \(index) " + String(repeating: "x", count: index % 200)
            }
            text += "\(key),\(width),\(50 + index % 700),1,2024-01-\(String(format: "%02d", 1 + index % 28)),https://cdn\(index % 3).example/\(index),\(title)\n"
        }
        return text
    }

    /// Both stores give out the same ids for the same imports, so `list` and `page` print the
    /// same: only a new item takes an id (a row that updates an item, or leaves it as it was,
    /// takes none), and the next new item gets the same one on both.
    @Test(arguments: Backend.allCases) func reimportsGiveTheSameIdsOnBothStores(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3))
        for _ in 0..<2 { _ = try catalog.importItems(PagerTests.importRows(3)) }
        var rows = PagerTests.importRows(4)
        rows[0].width += 1
        #expect(try catalog.importItems(rows).added == 1)
        let ids = try catalog.items(order: .path).map(\.id)
        #expect(ids == [1, 2, 3, 4], "\(backend): \(ids)")
        #expect(try catalog.items(order: .path).first?.width == rows[0].width)
    }

    /// Importing an export again that changes nothing leaves the catalog as it was: no new
    /// generation, so its stored layouts stay current and its clients need no change set. A key
    /// twice in one input is still refused when its first row changes nothing, in a statement
    /// of many rows (SQLite writes 64 to a statement) and in the rows after the last such.
    @Test(arguments: Backend.allCases) func anUnchangedExportAgain_changesNothing_andAKeyTwiceIsStillRefused(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let rows = PagerTests.importRows(150)
        _ = try catalog.importItems(rows)
        let configuration = LayoutConfiguration(width: 375)
        _ = try catalog.precompute(configuration)
        let generation = try catalog.generation()
        let before = try catalog.items(order: .path)
        let again = try catalog.importItems(rows)
        #expect(again == ImportSummary(added: 0, updated: 0, unchanged: 150, generation: generation))
        #expect(try catalog.generation() == generation)
        #expect(try catalog.items(order: .path) == before)
        #expect(try catalog.layouts().map(\.generation) == [generation], "\(backend): the stored layout is still current")

        // Line 12 (in the first statement of 64) and line 140 (in the rows after the second)
        // leave their items as they were; each key comes again later, once changed, once not.
        for (first, second, changed) in [(10, 100, true), (10, 30, false), (138, 145, true), (138, 149, false)] {
            var twice = rows
            twice[second] = rows[first]
            twice[second].line = rows[second].line
            if changed { twice[second].width += 1 }
            #expect(throws: StoreError.invalidInput(line: rows[second].line, reason: "key \"\(rows[first].key)\" appears twice (first on line \(rows[first].line))"),
                    "\(backend): lines \(rows[first].line) and \(rows[second].line)") {
                try catalog.importItems(twice)
            }
        }
        #expect(try catalog.generation() == generation)
        #expect(try catalog.items(order: .path) == before)

        // A new title, a new size and a new date among unchanged rows: three updates.
        var changes = rows
        changes[5].title = "new title"
        changes[70].height += 1
        changes[140].date = "1990-01-01T00:00:00"
        let summary = try catalog.importItems(changes + PagerTests.importRows(2, from: 150))
        #expect(summary == ImportSummary(added: 2, updated: 3, unchanged: 147, generation: generation + 1))
        let items = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        #expect(items[changes[5].key]?.title == "new title")
        #expect(items[changes[70].key]?.pixelHeight == changes[70].height)
        #expect(items[changes[140].key]?.date == "1990-01-01T00:00:00")
        #expect(items.values.map(\.id).sorted() == Array(1...152), "\(backend): only the new items took ids")
        try OrderDataTests.expectCurrent(catalog, "\(backend)")
    }

    @Test(arguments: Backend.allCases) func aLongInputIsReadInPieces_withTheRowsOfAWholeRead(_ backend: Backend) throws {
        let text = Self.longCSV(rows: 40_000)
        #expect(text.utf8.count > 3 << 20, "past a few of the reader's 1 MiB blocks")
        let expected = try parse(text, .csv).get()
        let library = try Library(backend)
        let file = try library.write("long.csv", Data(text.utf8))
        let catalog = try library.catalog()
        let summary = try catalog.importItems(from: file)
        #expect((summary.added, summary.updated) == (40_000, 0))
        let stored = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        #expect(stored.count == expected.count)
        for row in expected {
            let item = try #require(stored[row.key])
            #expect((item.pixelWidth, item.pixelHeight, item.url, item.title) == (row.width, row.height, row.url, row.title))
        }
        #expect(stored["pin-3"]?.title == "two\nlines, \"quoted\" 3")
        #expect(try catalog.webOrigins(limit: 10) == ["https://cdn0.example", "https://cdn1.example", "https://cdn2.example"])
    }

    /// An item imported again without a date sorts by its first import's time, not the new
    /// import's: importing the same export again must not move every undated item to the top.
    @Test(arguments: Backend.allCases) func anItemImportedAgainWithoutADate_keepsSortingByItsFirstImport(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        // Past 64 rows, so that SQLite upserts many rows to a statement as well as one at a time.
        let many = (0..<70).map { ImportRow(line: 4 + $0, key: "z-\($0)", width: 5, height: 5) }
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "undated", width: 5, height: 5),
                                           ImportRow(line: 3, key: "dated", width: 5, height: 5, date: "2019-01-01T00:00:00")] + many,
                                          importedAt: "2020-01-01T00:00:00")
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "other", width: 5, height: 5)], importedAt: "2021-01-01T00:00:00")
        let again = try catalog.store.importItems([ImportRow(line: 2, key: "undated", width: 6, height: 5),
                                                   ImportRow(line: 3, key: "dated", width: 5, height: 5)] + many,
                                                  importedAt: "2022-01-01T00:00:00")
        #expect((again.added, again.updated, again.unchanged) == (0, 2, 70), "the 70 others are as they were")
        let items = try catalog.items()
        #expect(items.prefix(3).map { String(decoding: $0.key, as: UTF8.self) } == ["other", "dated", "undated"], "\(backend)")
        #expect(items.prefix(3).map(\.date) == ["2021-01-01T00:00:00", "2020-01-01T00:00:00", "2020-01-01T00:00:00"],
                "the dated item, now without a date, falls back to its first import's time too")
        #expect(items.dropFirst().allSatisfy { $0.date == "2020-01-01T00:00:00" }, "\(backend)")
        #expect(items[2].width == 6, "the rest of the row is updated")
        try OrderDataTests.expectCurrent(catalog, "\(backend)")
    }

    /// A WAL grown large while another process held a snapshot (a long `list`, a server beside
    /// a big import) is cut back once it starts over, not kept at its largest for as long as
    /// any process has the catalog open (it stayed at 270 MB beside a 55 MB catalog).
    @Test func aWALGrownBesideASnapshot_isCutBackOnceItStartsOver() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "first", width: 1, height: 1)])
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true // the snapshot outlives one access
        let reader = try DatabaseQueue(path: library.catalogPath, configuration: configuration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM items") // holds its snapshot: no checkpoint passes it
        }
        let long = String(repeating: "x", count: 2_000)
        _ = try catalog.importItems((0..<50_000).map { ImportRow(line: $0 + 2, key: "pin-\($0)", width: 2, height: 3, title: long) })
        func walSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: library.catalogPath + "-wal")[.size] as? Int) ?? 0 }
        try #require(walSize() > 80 << 20, "the WAL grew past the limit: \(walSize())")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }
        // A commit checkpoints the whole WAL now, and the next write starts it over.
        for key in ["after-1", "after-2", "after-3"] { _ = try catalog.importItems([ImportRow(line: 2, key: key, width: 1, height: 1)]) }
        #expect(walSize() <= 64 << 20, "\(walSize())")
    }

    @Test(arguments: Backend.allCases) func aBadLineDeepInALongInput_leavesTheCatalogAsItWas_andIsNamed(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(from: try library.write("first.csv", Data("key,width,height\nkept,1,2\n".utf8)))
        let generation = try catalog.generation()
        // Titles span lines, so a record's line is its first line in the file, as a whole read names it.
        for (name, text) in [("bad.csv", Self.longCSV(rows: 30_000, badRecord: 29_000)), ("twice.csv", Self.longCSV(rows: 30_000, repeatKeyAt: 25_000))] {
            guard case .failure(let expected) = parse(text, .csv), case .invalidInput(let line, _) = expected else {
                Issue.record("a whole read of \(name) is refused too")
                continue
            }
            #expect(line > 25_000, "deep in the file, past several batches of 4096 rows")
            #expect(throws: expected) { try catalog.importItems(from: try library.write(name, Data(text.utf8))) }
        }
        #expect(try catalog.items(order: .path).map { String(decoding: $0.key, as: UTF8.self) } == ["kept"])
        #expect(try catalog.generation() == generation)
        #expect(try catalog.webOrigins(limit: 10) == [])
    }

    @Test(arguments: Backend.allCases) func importedAddressesKeepTheirOrigins_asSchemeHostAndPort_lowercased(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let ndjson = [
            #"{"key":"a","width":1,"height":1,"url":"HTTPS://I.Pinimg.COM/originals/a.jpg"}"#,
            #"{"key":"b","width":1,"height":1,"url":"http://cdn.example:8080?size=large"}"#,
            #"{"key":"c","width":1,"height":1,"url":"https://frag.example#top"}"#,
            #"{"key":"d","width":1,"height":1,"url":"ftp://files.example/d.jpg"}"#,
            #"{"key":"e","width":1,"height":1,"url":"https://i.pinimg.com/other.jpg"}"#,
            #"{"key":"f","width":1,"height":1,"url":"/relative/f.jpg"}"#,
        ].joined(separator: "\n")
        _ = try catalog.importItems(from: try library.write("pins.ndjson", Data(ndjson.utf8)))
        #expect(try catalog.webOrigins(limit: 10) == ["http://cdn.example:8080", "https://frag.example", "https://i.pinimg.com"])
        // An update that moves an item to another host adds that host; the old one stays.
        _ = try catalog.importItems(from: try library.write("moved.csv", Data("key,width,height,url\nd,1,1,https://new.example/d.jpg\n".utf8)))
        #expect(try catalog.webOrigins(limit: 10).contains("https://new.example"))
        #expect(try catalog.webOrigins(limit: 10).count == 4)
    }

    /// Text that COPY's text format escapes (backslashes, tabs, line ends) comes back as it was
    /// given, on both stores; and so does text with nothing to escape beside it.
    @Test(arguments: Backend.allCases) func textWithTabsBackslashesAndLineEnds_isStoredAsGiven(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let titles = ["tab\there", #"back\slash\N"#, "line\nend\r\n", "carriage\rreturn", "plain title", "ünïcödé \\ and \t"]
        let rows = titles.enumerated().map { index, title in
            ImportRow(line: index + 2, key: index == 1 ? #"key\with\backslash"# : "k\(index)", width: 10, height: 20,
                      url: "https://cdn.example/\(index)\t", title: title)
        }
        _ = try catalog.importItems(rows)
        let stored = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        for row in rows {
            let item = try #require(stored[row.key], "\(backend): \(row.key)")
            #expect((item.title, item.url) == (row.title, row.url), "\(backend): \(row.key)")
        }
        // Origins that come back after another: each is kept once.
        let hosts = ["a.example", "b.example", "a.example", "A.EXAMPLE", "c.example", "b.example"]
        _ = try catalog.importItems(hosts.enumerated().map { index, host in
            ImportRow(line: index + 2, key: "o\(index)", width: 1, height: 1, url: "https://\(host)/\(index)")
        })
        #expect(try catalog.webOrigins(limit: 10) == ["https://a.example", "https://b.example", "https://c.example", "https://cdn.example"], "\(backend)")
    }

    @Test(arguments: Backend.allCases) func anInputThatCannotBeReadIsNamed_notTakenForTheCatalog(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let missing = library.root.appendingPathComponent("missing.csv").path
        #expect(throws: StoreError.cannotRead(path: missing, reason: "No such file or directory")) { try catalog.importItems(from: missing) }
        let folder = library.root.path
        #expect(throws: StoreError.cannotRead(path: folder, reason: "Is a directory")) { try catalog.importItems(from: folder, format: .csv) }
        #expect(StoreError.cannotRead(path: missing, reason: "No such file or directory").description
                == "cannot read \(missing): No such file or directory; nothing was imported")
        #expect(try catalog.generation() == 0)
    }
}
