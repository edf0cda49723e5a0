import CatalogKit
import CatalogModel
import Foundation
import Testing

/// `catalog layouts`: dropping one layout or all, and the byte budget that evicts the least
/// recently used, through the real binary.
@Suite(.serialized) struct LayoutsCommandTests {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try BuiltTool.run(arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    func stored(_ library: Library) throws -> [String] { try library.catalog().layouts().map(\.configuration) }

    @Test(arguments: Backend.allCases)
    func dropOneConfiguration_orAll(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        _ = try library.catalog().importItems(PagerTests.importRows(3000))
        for cols in ["2", "3", "4"] {
            #expect(try run(["layout", "--db", library.catalogPath, "--width", "375", "--cols", cols]).status == 0)
        }
        #expect(try stored(library).count == 3)
        // `catalog layout` reports what computing and what storing took, and nothing to store when fresh.
        let timed = try run(["layout", "--db", library.catalogPath, "--width", "400", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(timed.stdout.utf8)) as? [String: Any])
        #expect((report["source"] as? String) == "computed" && ((report["storeSeconds"] as? Double) ?? 0) > 0, "\(timed.stdout)")
        let fresh = try run(["layout", "--db", library.catalogPath, "--width", "400", "--json"])
        #expect(fresh.stdout.contains(#""storeSeconds":0.0000,"#) && fresh.stdout.contains(#""source":"stored""#), "\(fresh.stdout)")
        #expect((report["contentWidth"] as? Double) == 400 && ((report["contentHeight"] as? Double) ?? 0) > 400, "\(timed.stdout)")
        // A carousel's size as its page gives it: its length is its width (it was `contentHeight`).
        let carousel = try run(["layout", "--db", library.catalogPath, "--width", "400", "--style", "carousel", "--item-height", "100", "--json"])
        let row = try #require(try JSONSerialization.jsonObject(with: Data(carousel.stdout.utf8)) as? [String: Any])
        #expect((row["contentHeight"] as? Double) == 116 && ((row["contentWidth"] as? Double) ?? 0) > 3000, "\(carousel.stdout)")
        #expect(try run(["layouts", "--db", library.catalogPath, "--drop", "carousel item-height=100"]).status == 0)
        #expect(try run(["layouts", "--db", library.catalogPath, "--drop", "waterfall width=400"]).status == 0)

        let one = try run(["layouts", "--db", library.catalogPath, "--drop", "waterfall width=375 cols=3"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.hasPrefix("dropped waterfall width=375.0 cols=3 "))
        let left = try stored(library)
        #expect(left.count == 2 && !left.contains { $0.contains("cols=3 ") })

        let again = try run(["layouts", "--db", library.catalogPath, "--drop", "waterfall width=375 cols=3"])
        #expect(again.status == 1 && again.stderr.contains("no stored layout of waterfall width=375.0 cols=3"))
        let bad = try run(["layouts", "--db", library.catalogPath, "--drop", "waterfall width=-1"])
        #expect(bad.status == 2 && bad.stderr.contains("width"), "\(bad.stderr)")
        let stray = try run(["layouts", "--db", library.catalogPath, "waterfall width=375"])
        #expect(stray.status == 2 && stray.stderr.contains("only with --drop"))

        let all = try run(["layouts", "--db", library.catalogPath, "--drop", "--json"])
        #expect(all.stdout == "{\"dropped\":2}\n")
        #expect(try stored(library).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func theBudgetKeepsTheMostRecentlyUsedLayouts(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3000))
        #expect(try catalog.layoutBudget() == 1 << 30, "1 GiB unless set")
        let first = try catalog.precompute(LayoutConfiguration(width: 375)).layout
        let listing = try run(["layouts", "--db", library.catalogPath])
        #expect(listing.stdout.hasSuffix("1 layouts, \(first.bytes) bytes of a 1073741824 byte budget\n"), "\(listing.stdout)")

        // Room for about two layouts of this size.
        let set = try run(["layouts", "--db", library.catalogPath, "--budget", "\(first.bytes * 5 / 2)"])
        #expect(set.status == 0 && set.stdout == "layout budget \(first.bytes * 5 / 2) bytes; dropped 0 layouts\n", "\(set.stdout)\(set.stderr)")
        var second = LayoutConfiguration(width: 375)
        second.columns = 3
        var third = LayoutConfiguration(width: 375)
        third.columns = 4
        _ = try catalog.precompute(second)
        _ = try catalog.precompute(third) // past the budget: the least recently used (the first) goes
        let kept = try stored(library)
        #expect(kept.count == 2 && !kept.contains(first.configuration) && kept.contains(third.key), "\(kept)")

        let none = try run(["layouts", "--db", library.catalogPath, "--budget", "0", "--json"])
        #expect(none.stdout == "{\"budget\":0,\"dropped\":2}\n", "\(none.stdout)")
        _ = try catalog.precompute(second)
        #expect(try stored(library) == [second.key], "the layout just stored stays, even past the budget")
        #expect(try run(["layouts", "--db", library.catalogPath, "--budget", "1G"]).stdout.hasPrefix("layout budget 1073741824 bytes"))
        let wrong = try run(["layouts", "--db", library.catalogPath, "--budget", "lots"])
        #expect(wrong.status == 2 && wrong.stderr.contains("--budget: \"lots\" is not a size"))
        // While an import or a scan writes the catalog, the budget waits its turn in words (it
        // was "database is locked" after ten seconds, an import holding the catalog).
        var writer: (any WriteLease)? = try catalog.store.lockForWriting()
        let busy = try run(["layouts", "--db", library.catalogPath, "--budget", "2G"])
        #expect(busy.status == 1 && busy.stderr.contains("another scan, import or `catalog cluster` is writing to \(library.catalogPath)"), "\(busy.stderr)")
        #expect(writer != nil)
        writer = nil
        #expect(try run(["layouts", "--db", library.catalogPath, "--budget", "2G"]).status == 0)
    }

    /// Processes storing layouts at once keep to the budget between them: each counted what was
    /// stored without another's store not committed yet, and all found they fitted (PostgreSQL:
    /// two layouts of 190 KB kept under a budget of 300 KB). Eight `catalog layout` at a time,
    /// three rounds, room for one and a half layouts: one is left after each.
    @Test(arguments: Backend.allCases)
    func storesAtOnceKeepToTheBudgetBetweenThem(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(20_000)) // stores long enough to overlap
        let one = try catalog.precompute(LayoutConfiguration(width: 300)).layout.bytes
        #expect(try run(["layouts", "--db", library.catalogPath, "--budget", "\(one * 3 / 2)"]).status == 0)
        for round in 0..<3 {
            let processes = try (0..<8).map { index in
                let process = Process()
                process.executableURL = BuiltTool.catalog
                process.arguments = ["layout", "--db", library.catalogPath, "--width", "\(310 + index * 10 + round)", "--cols", "2"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            for process in processes { process.waitUntilExit() }
            let layouts = try catalog.layouts()
            #expect(layouts.count == 1, "round \(round): \(layouts.count) layouts, \(layouts.map(\.bytes).reduce(0, +)) bytes of a budget of \(one * 3 / 2)")
        }
    }
}
