import CatalogKit
import Foundation
import GRDB
import Testing

/// A scan killed with SIGKILL, and readers during a scan: these run the real `catalog` binary.
@Suite(.serialized) struct ScanDurabilityTests {
    func bigLibrary(files: Int) throws -> Library {
        let library = try Library()
        let jpeg = try Library.fixture("baseline.jpg")
        let png = try Library.fixture("rgb.png")
        for index in 0..<files {
            var bytes = index % 2 == 0 ? jpeg : png
            bytes.append(contentsOf: withUnsafeBytes(of: index) { Array($0) }) // distinct content after the image
            try library.write("\(index % 20)/img\(index).\(index % 2 == 0 ? "jpg" : "png")", bytes)
        }
        return library
    }

    /// Reads the scan's `committed N` lines (`--progress-lines`) until N reaches `count`;
    /// returns N, or -1 if the scan ended first. Blocks on the pipe: no polling, no sleeping.
    func waitForCommitted(atLeast count: Int, in lines: inout LineReader) -> Int {
        while let line = lines.next() {
            if line.hasPrefix("committed "), let committed = Int(line.dropFirst(10)), committed >= count { return committed }
        }
        return -1
    }

    /// Runs `catalog scan` in batches of 50 and kills it (SIGKILL) once it has said it committed
    /// `count` files; returns what it said last, and the process.
    func scanKilled(_ library: Library, afterCommitting count: Int) throws -> (seen: Int, process: Process) {
        let stderr = Pipe()
        let process = try BuiltTool.start(["scan", "--db", library.catalogPath, "--batch-size", "50", "--progress-lines", library.root.path],
                                          stderr: stderr)
        var lines = LineReader(stderr.fileHandleForReading)
        let seen = waitForCommitted(atLeast: count, in: &lines)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return (seen, process)
    }

    /// Waits until a batch is in the catalog at `path` (or `running` turns false), looking with one
    /// reader kept open, closed when it returns.
    static func waitForABatch(_ path: String, while running: () -> Bool) throws {
        let reader = try Catalog.openExisting(at: path)
        while (try? reader.store.itemCount()) ?? 0 == 0, running() { Thread.sleep(forTimeInterval: 0.02) }
    }

    /// Sends `signal` to a process stopped meanwhile (SIGSTOP, then SIGCONT): it is pending when
    /// the process goes on, so that its handler runs before the scan gets much further.
    static func signalStopped(_ pid: pid_t, _ signal: Int32) {
        kill(pid, SIGSTOP)
        kill(pid, signal)
        kill(pid, SIGCONT)
    }

    /// Ctrl-C or SIGTERM during the first scan of `scan --watch` or `serve --scan` went unheard
    /// until that scan was done (minutes on a NAS): it now ends them as it ends a scan, the
    /// batches written kept, and the next scan finishes the work.
    @Test func theFirstScanOfAWatchOrAServer_stopsAtASignal() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try bigLibrary(files: 20_000)
        _ = try library.catalog()
        let stderr = Pipe()
        let watch = try BuiltTool.start(["scan", "--watch", "--db", library.catalogPath, "--batch-size", "50", library.root.path], stderr: stderr)
        // A batch is in (counted by one reader kept open: a read of every item took long enough,
        // on a busy machine, for the scan to end first); the process is stopped while the signal
        // is sent, so that it is heard before the scan goes on.
        try Self.waitForABatch(library.catalogPath) { watch.isRunning }
        Self.signalStopped(watch.processIdentifier, SIGINT)
        var lines = LineReader(stderr.fileHandleForReading)
        var said: [String] = []
        while let line = lines.next() {
            said.append(line)
            if line.hasPrefix("watching ") { kill(watch.processIdentifier, SIGINT) } // the scan won the race: end the test
        }
        watch.waitUntilExit()
        try #require(!said.contains { $0.hasPrefix("watching ") }, "the first scan ended before the signal; make the library bigger")
        #expect(watch.terminationReason == .exit && watch.terminationStatus == 128 + SIGINT)
        #expect(said.last == "interrupted: the batches written so far are kept; the same scan again finishes the work, without reading them again", "\(said.suffix(3))")
        // The catalog's file alone holds them, as after a scan that ends (all were in its -wal,
        // which a copy of the file alone left behind: it had no tables). Copied before anything
        // opens the catalog again (which would copy them over from the -wal).
        let copy = library.root.deletingLastPathComponent().appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: library.catalogPath, toPath: copy)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        let inTheFile = try DatabaseQueue(path: copy).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0 }
        let kept = try library.items().count
        #expect(kept > 0 && kept < 20_000, "\(kept) of 20,000")
        #expect(inTheFile == kept, "\(inTheFile) in the file alone, \(kept) in the catalog")

        // The server: its first scan runs on a thread of its own while it answers.
        try FileManager.default.removeItem(atPath: library.catalogPath) // a first scan again, from nothing
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: library.catalogPath + suffix) }
        let server = Process()
        server.executableURL = BuiltTool.catalog
        server.arguments = ["serve", "--db", library.catalogPath, "--port", "0", "--quiet", "--scan", library.root.path]
        let serverOutput = Pipe(), serverErrors = Pipe()
        server.standardOutput = serverOutput
        server.standardError = serverErrors
        try server.run()
        var output = LineReader(serverOutput.fileHandleForReading)
        try #require(output.next()?.hasPrefix("listening on ") == true) // its signal handlers are in place
        try Self.waitForABatch(library.catalogPath) { server.isRunning }
        Self.signalStopped(server.processIdentifier, SIGTERM)
        let serverSaid = String(decoding: serverErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        try #require(!serverSaid.contains("scanned: added"), "the first scan ended before the signal; make the library bigger: \(serverSaid)")
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        #expect(serverSaid.hasSuffix("stopped during the first scan: the batches written so far are kept; the same scan again finishes the work, without reading them again\n"),
                "\(serverSaid)")
        #expect(try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        #expect(try library.items().count == 20_000)
    }

    /// A scan that ends leaves what it wrote in the catalog's file, its -wal folded in and gone:
    /// a copy of the file alone holds it all.
    @Test func aScanThatEndsLeavesItsWorkInTheCatalogsFile() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try bigLibrary(files: 300)
        let result = try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath + "-wal"), "the -wal left beside it")
        #expect(try library.items().count == 300)
    }

    @Test func aScanKilledMidwayLeavesAConsistentCatalog_thatTheNextScanCompletes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try bigLibrary(files: 3000)
        _ = try library.catalog()
        let (seen, process) = try scanKilled(library, afterCommitting: 200)
        try #require(seen >= 200, "the scan ended before it could be killed; make the library bigger")
        try #require(process.terminationReason == .uncaughtSignal)
        let check = try DatabaseQueue(path: library.catalogPath).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
        let partial = try library.items().count
        #expect(partial > 0 && partial < 3000, "killed midway: \(partial) of 3000")
        for order in ItemOrder.allCases { // behind the items (readers then use the items), or equal to them
            let catalog = try library.catalog()
            if let data = try OrderDataTests.orderData(catalog, order) {
                let equal = data.map(\.id) == (try catalog.items(order: order).map(\.id))
                #expect(equal, "\(order) order data after the kill")
            }
        }

        let resumed = try library.scan()
        #expect(resumed.unchanged >= partial)
        #expect(resumed.problems.isEmpty, "a big folder read while probing and writing: \(resumed.problems.prefix(3))")
        let resumedItems = try library.items()
        #expect(resumedItems.count == 3000)
        let cleanCatalog = try Catalog.open(at: library.catalogPath + ".clean") // the same files, scanned once
        _ = try cleanCatalog.scan([library.root.path])
        let cleanItems = try cleanCatalog.items(order: .path)
        #expect(cleanItems.map(\.key) == (try library.catalog().items(order: .path).map(\.key)))
        #expect(cleanItems.map { [$0.width, $0.height] } == (try library.catalog().items(order: .path).map { [$0.width, $0.height] }))
        #expect(Set(resumedItems.values.map(\.id)).count == 3000, "ids are unique")
        try OrderDataTests.expectCurrent(try library.catalog(), "after the kill and the next scan")
    }

    /// A folder copied then deleted (what `mv` across file systems does) is moved, ids and all,
    /// by batches that each move the generation once; a scan killed half-way through leaves no
    /// copy that the next scan would take for a new item (it took the copies for new items, then
    /// removed the originals and their ids).
    @Test func aFolderCopiedThenDeleted_keepsItsIds_evenWhenTheScanIsKilledHalfWay() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try bigLibrary(files: 600)
        _ = try library.scan()
        let before = try library.items()
        let generation = try library.catalog().generation()
        for index in 0..<20 {
            try FileManager.default.copyItem(atPath: library.path("\(index)"), toPath: library.path("copied-\(index)"))
            try FileManager.default.removeItem(atPath: library.path("\(index)"))
        }
        let (seen, _) = try scanKilled(library, afterCommitting: 50)
        try #require(seen >= 50 && seen < 600, "killed between two batches of moves: \(seen)")
        let partial = try library.items()
        #expect(partial.count == 600, "no copy taken for a new item, no original removed")
        // A generation for each batch of moves committed: at least the ones the scan said, more
        // if it went on before the kill landed.
        let moved = try library.catalog().generation() - generation
        #expect(moved >= Int64(seen / 50) && moved <= 600 / 50, "\(moved) generations for \(seen) files moved")
        let resumed = try library.scan()
        #expect((resumed.added, resumed.removed) == (0, 0), "\(resumed)")
        let after = try library.items()
        #expect(after.count == 600)
        for (path, item) in before {
            let name = String(path.dropFirst(library.root.path.count + 1))
            #expect(after[library.path("copied-" + name)]?.id == item.id, "\(name) keeps its id")
        }
    }

    @Test func readersListWhileAScanWrites() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try bigLibrary(files: 3000)
        _ = try library.catalog()
        let stderrPath = library.catalogPath + ".stderr"
        let process = try BuiltTool.start(["scan", "--db", library.catalogPath, "--batch-size", "50", library.root.path], stderrPath: stderrPath)
        var counts: [Int] = []
        while process.isRunning {
            let store = try library.catalog() // a reader opening the catalog mid-scan
            counts.append(try store.items(order: .date, limit: nil).count)
            let listed = try store.list(ListRequest(limit: 5))
            let whole = try store.list(ListRequest())
            #expect(whole.items.count == whole.total, "one snapshot: the total is the items'")
            #expect(listed.total >= listed.items.count)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scan failed: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        #expect(counts.count > 1)
        #expect(counts == counts.sorted(), "each read sees a committed state: counts never go back")
        #expect(counts.contains { $0 > 0 && $0 < 3000 }, "some reads happened mid-scan: \(counts.prefix(20))")
        #expect(try library.items().count == 3000)
    }
}
