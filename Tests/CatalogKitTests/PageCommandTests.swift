import CatalogKit
import Foundation
import Testing

/// The `catalog page` command as a user runs it: JSON shape, exit codes, pages during a scan.
@Suite(.serialized) struct PageCommandTests {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) { try BuiltTool.run(arguments) }

    @Test func jsonHasTheDocumentedShape() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(2000))
        let result = try run(["page", "--db", library.catalogPath, "--width", "375", "--cols", "2", "--offset", "4000", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["contentHeight", "contentWidth", "generation", "viewport", "items", "itemCount", "next", "previous", "source"])
        #expect(object["source"] as? String == "computed", "the first page of a configuration computes its layout")
        #expect(object["contentWidth"] as? Double == 375)
        #expect(object["itemCount"] as? Int == 2000)
        let viewport = try #require(object["viewport"] as? [String: Double])
        #expect(viewport == ["x": 0, "y": 4000, "width": 375, "height": 812])
        #expect(object["next"] as? Double == 4812)
        #expect(object["previous"] as? Double == 3188)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(!items.isEmpty)
        #expect(Set(items[0].keys) == ["kind", "section", "index", "id", "path", "column", "frame", "version", "url", "title"])
        #expect(items.allSatisfy { $0["kind"] as? String == "cell" && $0["section"] as? Int == 0 })
        #expect(items.allSatisfy { $0["version"] is NSNull }, "imported items have no file, so no version")
        #expect(Set((items[0]["frame"] as? [String: Double] ?? [:]).keys) == ["x", "y", "width", "height"])
        let top = try JSONSerialization.jsonObject(with: run(["page", "--db", library.catalogPath, "--width", "375", "--json"]).stdout) as? [String: Any]
        #expect(top?["previous"] is NSNull)
        #expect(top?["source"] as? String == "stored", "the next one reads it")
    }

    @Test(arguments: [
        ["--width", "0"], ["--width", "-3"], ["--width", "375", "--cols", "0"], ["--width", "100", "--cols", "40"],
        ["--width", "375", "--offset=-1"], ["--width", "375", "--height=-5"], ["--width", "375", "--inset", "1,2,3"],
        ["--width", "375", "--inset", "a"], ["--width", "375", "--style", "mosaic"], ["--width", "375", "--direction", "up"], [],
    ])
    func badArgumentsExitWith2AndOneMessage(_ arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run(["page", "--db", library.catalogPath] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stdout.isEmpty)
    }

    /// The command line names the other options a refusal points to as its options (`--item`),
    /// not as the API's parameters ("with item"), in its errors and its --help.
    @Test func refusalsNameTheOtherOptionsAsOptions() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let anchor = try run(["page", "--db", library.catalogPath, "--width", "375", "--anchor-y", "150"])
        #expect(anchor.status == 2 && anchor.stderr.contains("--anchor-y must be given with --item"), "\(anchor.stderr)")
        let rect = try run(["page", "--db", library.catalogPath, "--width", "375", "--rect", "0,0,10,10", "--offset", "5"])
        #expect(rect.status == 2 && rect.stderr.contains("--rect must be given without --offset:"), "\(rect.stderr)")
        let help = String(decoding: try run(["page", "--help"]).stdout, as: UTF8.self)
        #expect(help.contains("within ±1000000, with --item.") && help.contains("--height or --item.") && !help.contains("or item."), "\(help)")
    }

    @Test func pastTheEndIsAnEmptyPage_andAnEmptyCatalogHints() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog() // made, empty (one that does not exist is refused: CommandLineTests)
        let empty = try run(["page", "--db", library.catalogPath, "--width", "375"])
        #expect(empty.status == 0)
        #expect(empty.stderr.contains("catalog scan"))
        _ = try library.catalog().importItems(PagerTests.importRows(10))
        let past = try run(["page", "--db", library.catalogPath, "--width", "375", "--offset", "1000000", "--json"])
        #expect(past.status == 0)
        let object = try JSONSerialization.jsonObject(with: past.stdout) as? [String: Any]
        #expect((object?["items"] as? [Any])?.isEmpty == true)
        #expect((object?["contentHeight"] as? Double ?? 0) > 0)
    }

    /// The table's header and columns come from the layout, not from what one page holds: a
    /// carousel page past the end is still along x, a sectioned page without a header still
    /// has the kind and section columns (`cut -f` keeps working as one scrolls).
    @Test func theTablesColumnsFollowTheLayout_notThePage() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(200))
        let past = try run(["page", "--db", library.catalogPath, "--width", "600", "--style", "carousel", "--offset", "1e9"])
        let pastLines = String(decoding: past.stdout, as: UTF8.self).split(separator: "\n")
        #expect(pastLines.first?.hasPrefix("content width ") == true && pastLines.first?.contains("viewport x 1000000000 ") == true, "\(pastLines)")
        #expect(pastLines.dropFirst().first == "index\tid\tcolumn\tx\ty\twidth\theight\tpath\tscale\talpha\tz")
        var headers = Set<String>()
        for offset in ["0", "5000", "20000"] {
            let page = try run(["page", "--db", library.catalogPath, "--width", "375", "--sections", "month", "--offset", offset, "--height", "100"])
            headers.insert(String(String(decoding: page.stdout, as: UTF8.self).split(separator: "\n")[1]))
        }
        #expect(headers == ["kind\tsection\tindex\tid\tcolumn\tx\ty\twidth\theight\tpath"])
        // A carousel's length is its width, in `catalog layout` and `catalog sections` too.
        for command in ["layout", "sections"] {
            let text = String(decoding: try run([command, "--db", library.catalogPath, "--width", "600", "--style", "carousel"]).stdout, as: UTF8.self)
            #expect(text.contains(", content width ") && !text.contains("content height"), "\(command): \(text)")
        }
    }

    /// Pages while a scan writes: every page is complete and from one generation.
    @Test func pagesDuringAScanNeverFail_andNeverMixGenerations() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let jpeg = try Library.fixture("baseline.jpg")
        for index in 0..<3000 {
            var bytes = jpeg
            bytes.append(contentsOf: withUnsafeBytes(of: index) { Array($0) })
            try library.write("\(index % 10)/\(index).jpg", bytes)
        }
        _ = try library.catalog()
        let scan = try BuiltTool.start(["scan", "--db", library.catalogPath, "--batch-size", "50", library.root.path])
        var generations: [Int64] = []
        var itemCounts: [Int] = []
        let configuration = LayoutConfiguration(width: 375)
        // Every file is the same 24x16 image: in two 175.5-point columns each item is 117
        // points tall, so the first 812 points hold the first items in index order, as many
        // as the reference lays out there for the page's item count.
        func expectedCount(_ itemCount: Int) -> Int {
            let rows = (0..<itemCount).map {
                ItemRow(id: Int64($0), key: Data(), isImported: false, format: "jpeg", pixelWidth: 24, pixelHeight: 16, orientation: 1,
                        width: 24, height: 16, bytes: nil, date: "", url: nil, title: nil)
            }
            return PagerTests.reference(rows, configuration).items.filter { $0.frame.y < 812 }.count
        }
        while scan.isRunning {
            let store = try library.catalog()
            let page = try store.page(PageRequest(configuration: configuration, position: .offset(0), height: 812))
            generations.append(page.generation)
            itemCounts.append(page.itemCount)
            // Same snapshot: the page's layout covers exactly the items of its generation.
            #expect(page.items.allSatisfy { !$0.path.isEmpty }, "every item of the page has its row")
            #expect(page.items.map(\.index) == Array(0..<expectedCount(page.itemCount)), "generation \(page.generation)")
            #expect(page.items.allSatisfy { abs($0.frame.height - 117) < 1e-9 && $0.frame.y < 812 })
            #expect(Set(page.items.map(\.id)).count == page.items.count)
        }
        scan.waitUntilExit()
        #expect(scan.terminationStatus == 0)
        #expect(generations.count > 1)
        #expect(generations == generations.sorted())
        #expect(itemCounts.contains { $0 > 0 && $0 < 3000 }, "some pages were read mid-scan: \(itemCounts.prefix(20))")
        let final = try library.catalog().page(PageRequest(configuration: configuration, position: .offset(0), height: 812))
        #expect(final.itemCount == 3000)
    }
}
