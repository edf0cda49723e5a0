import CatalogKit
import Foundation
import Testing

/// The `catalog page` command as a user runs it: JSON shape, exit codes, pages during a scan.
@Suite(.serialized) struct PageCommandTests {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = BuiltTool.catalog
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    @Test func jsonHasTheDocumentedShape() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.store().importItems(PagerTests.importRows(2000), importedAt: "2026-01-01T00:00:00")
        let result = try run(["page", "--db", library.catalogPath, "--width", "375", "--cols", "2", "--offset", "4000", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["contentHeight", "generation", "viewport", "items", "next", "previous"])
        let viewport = try #require(object["viewport"] as? [String: Double])
        #expect(viewport == ["x": 0, "y": 4000, "width": 375, "height": 812])
        #expect(object["next"] as? Double == 4812)
        #expect(object["previous"] as? Double == 3188)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(!items.isEmpty)
        #expect(Set(items[0].keys) == ["index", "id", "path", "column", "frame"])
        #expect(Set((items[0]["frame"] as? [String: Double] ?? [:]).keys) == ["x", "y", "width", "height"])
        let top = try JSONSerialization.jsonObject(with: run(["page", "--db", library.catalogPath, "--width", "375", "--json"]).stdout) as? [String: Any]
        #expect(top?["previous"] is NSNull)
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

    @Test func pastTheEndIsAnEmptyPage_andAnEmptyCatalogHints() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let empty = try run(["page", "--db", library.catalogPath, "--width", "375"])
        #expect(empty.status == 0)
        #expect(empty.stderr.contains("catalog scan"))
        _ = try library.store().importItems(PagerTests.importRows(10), importedAt: "2026-01-01T00:00:00")
        let past = try run(["page", "--db", library.catalogPath, "--width", "375", "--offset", "1000000", "--json"])
        #expect(past.status == 0)
        let object = try JSONSerialization.jsonObject(with: past.stdout) as? [String: Any]
        #expect((object?["items"] as? [Any])?.isEmpty == true)
        #expect((object?["contentHeight"] as? Double ?? 0) > 0)
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
        _ = try library.store()
        let scan = try BuiltTool.start(["scan", "--db", library.catalogPath, "--batch-size", "50", library.root.path])
        var generations: [Int64] = []
        let configuration = LayoutConfiguration(width: 375)
        while scan.isRunning {
            let store = try library.store()
            let page = try Pager.page(store: store, configuration: configuration, position: .offset(0), height: 812)
            generations.append(page.generation)
            // Same snapshot: the page's layout covers exactly the items of its generation.
            #expect(page.items.allSatisfy { !$0.path.isEmpty }, "every item of the page has its row")
            #expect(page.items.count == min(page.itemCount, 8 * 4) || page.items.count <= page.itemCount)
        }
        scan.waitUntilExit()
        #expect(scan.terminationStatus == 0)
        #expect(generations.count > 1)
        #expect(generations == generations.sorted())
        let final = try Pager.page(store: try library.store(), configuration: configuration, position: .offset(0), height: 812)
        #expect(final.itemCount == 3000)
    }
}
