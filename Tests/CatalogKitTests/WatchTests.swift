import CatalogKit
import CatalogStore
import Foundation
import Synchronization
import Testing

/// `catalog scan --watch` on real files: created, modified, deleted and renamed files, files in
/// folders created later and moves between folders show up, each within the debounce, by the
/// line it prints per rescan (never a fixed sleep); SIGTERM ends it cleanly.
@Suite struct WatchTests {
    /// The running watcher, its stdout read line by line; killed after `limit` whatever happens.
    final class Watcher {
        let process: Process
        var lines: LineReader
        /// `runAs`: a command that runs the binary as another user (`runuser -u nobody --`).
        init(_ arguments: [String], runAs: [String] = [], limit: Duration = .seconds(180)) throws {
            process = Process()
            process.executableURL = runAs.isEmpty ? BuiltTool.catalog : URL(fileURLWithPath: runAs[0])
            process.arguments = runAs.isEmpty ? arguments : Array(runAs.dropFirst()) + [BuiltTool.catalog.path] + arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            lines = LineReader(out.fileHandleForReading)
            let process = process
            Task.detached {
                try? await Task.sleep(for: limit)
                if process.isRunning { process.terminate() }
            }
        }

        /// The next line, skipping those that do not match; nil if the process ended first.
        func next(matching predicate: (String) -> Bool) -> String? {
            while let line = lines.next() { if predicate(line) { return line } }
            return nil
        }

        /// Rescan lines until the catalog satisfies `condition` (a burst may take two rounds).
        func waitFor(_ library: Library, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                     _ condition: ([String: (id: Int64, width: Int, height: Int)]) -> Bool) throws {
            while true {
                if condition(try WatchTests.relative(library)) { return }
                guard next(matching: { $0.hasPrefix("rescanned ") || $0.hasPrefix("{\"rescanned\"") }) != nil else {
                    Issue.record("the watcher ended before \(what)", sourceLocation: sourceLocation)
                    return
                }
            }
        }
    }

    /// Items by path under the library's root.
    static func relative(_ library: Library) throws -> [String: (id: Int64, width: Int, height: Int)] {
        let prefix = library.root.path + "/"
        return Dictionary(uniqueKeysWithValues: try library.items().map { (String($0.key.dropFirst(prefix.count)), $0.value) })
    }

    /// A patient watch (`catalog serve --scan`) whose catalog another process is writing says
    /// so once and waits for it, instead of stopping for good; then it scans and watches.
    @Test func aPatientWatchWaitsForAnotherWriter_thenScansAndWatches() throws {
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let catalog = try library.catalog()
        var lock = Optional(try catalog.store.lockForWriting())
        let stop = StopFlag()
        let events = Mutex<[String]>([])
        var settings = WatchSettings()
        settings.patient = true
        let patient = settings
        let root = library.root.path
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            do {
                try catalog.watch([root], settings: patient, stop: stop) { event in
                    switch event {
                    case .retrying(let error): events.withLock { $0.append("retrying: \(error)") }
                    case .watching(let summary, let folders): events.withLock { $0.append("watching \(folders), added \(summary.added)") }
                    default: break
                    }
                }
            } catch {
                events.withLock { $0.append("stopped: \(error)") }
            }
        }.start()
        try waitFor { events.withLock { !$0.isEmpty } }
        #expect(events.withLock { $0 } == ["retrying: \(StoreError.busy(path: catalog.location))"])
        lock = nil // the other writer is done
        try waitFor { events.withLock { $0.count > 1 } }
        #expect(events.withLock { $0.last } == "watching 1, added 1")
        stop.stop()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(try library.items().count == 1)
        withExtendedLifetime(lock) {}
    }

    /// SIGINT, SIGTERM and SIGHUP are blocked on every thread of a watching scan, so that they
    /// wait for its signal sources: the main thread took them through libdispatch's fallback,
    /// and about one Ctrl-C in a hundred was lost there (the scan went on watching).
    @Test func everyThreadOfAWatchingScanLeavesItsSignalsToItsSources() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.hasPrefix("added ") }) != nil)
        #expect(try Self.threadsTakingSignals(watcher.process.processIdentifier).isEmpty)
        kill(watcher.process.processIdentifier, SIGINT)
        watcher.process.waitUntilExit()
        #expect(watcher.process.terminationReason == .exit && watcher.process.terminationStatus == 0)
    }

    /// The threads of process `pid` (their names) that do not block SIGINT, SIGTERM and SIGHUP.
    static func threadsTakingSignals(_ pid: Int32) throws -> [String] {
        let held: UInt64 = 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGTERM) - 1) | 1 << (UInt64(SIGHUP) - 1)
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { thread in
            // A thread that ended since the listing has nothing to say.
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { return nil }
            let status = text.split(separator: "\n")
            let blocked = status.first { $0.hasPrefix("SigBlk:") }.flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) }
            return blocked.map { $0 & held == held } == true ? nil : String(status.first ?? "")
        }
    }

    /// A folder whose name is not UTF-8 is watched like any other: a file written into it, and
    /// one into a folder made in it later, are indexed (the watcher's paths are bytes; it used to
    /// skip such a folder, and rescan a path with U+FFFD in place of the byte).
    @Test func foldersWhoseNamesAreNotUTF8AreWatched() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        func cString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
            (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
        }
        func write(_ path: [UInt8], _ data: Data) {
            let fd = cString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
            #expect(fd >= 0)
            data.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let bad = Array(library.root.path.utf8) + Array("/bad".utf8) + [0xFF]
        #expect(cString(bad) { mkdir($0, 0o755) } == 0)
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.hasPrefix("added ") })?.hasPrefix("added 1,") == true)

        write(bad + Array("/b.png".utf8), try Library.fixture("rgb.png"))
        try watcher.waitFor(library, "a file in a folder whose name is not UTF-8") { $0.count == 2 }
        let inner = bad + Array("/new".utf8) + [0xFE]
        #expect(cString(inner) { mkdir($0, 0o755) } == 0)
        write(inner + Array("/c.jpg".utf8), try Library.fixture("progressive.jpg"))
        try watcher.waitFor(library, "a file in a folder made later in it") { $0.count == 3 }
    }

    @Test func createdModifiedDeletedRenamedAndNewFoldersAreSeen() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("old/b.png", Library.fixture("rgb.png"))
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.hasPrefix("added ") }) == "added 2, updated 0, moved 0, removed 0, unchanged 0, unsupported 0, failed 0")
        let a = try #require(try Self.relative(library)["a.jpg"]?.id)

        try library.write("c.jpg", Library.fixture("progressive.jpg"))
        try watcher.waitFor(library, "a created file") { $0["c.jpg"] != nil }
        try library.write("a.jpg", Library.fixture("grayscale.jpg")) // 20x36 now
        try watcher.waitFor(library, "a modified file") { $0["a.jpg"]?.width == 20 }
        #expect(try Self.relative(library)["a.jpg"]?.id == a)
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("renamed.jpg"))
        try watcher.waitFor(library, "a renamed file") { $0["renamed.jpg"] != nil && $0["a.jpg"] == nil }
        #expect(try Self.relative(library)["renamed.jpg"]?.id == a) // a rename keeps the item
        try FileManager.default.removeItem(atPath: library.path("c.jpg"))
        try watcher.waitFor(library, "a deleted file") { $0["c.jpg"] == nil }
        // A folder made after the watch began, and a file put in it at once.
        try library.write("new/deeper/d.png", Library.fixture("palette.png"))
        try watcher.waitFor(library, "a file in new folders") { $0["new/deeper/d.png"] != nil }
        try library.write("new/deeper/e.png", Library.fixture("rgb16.png")) // the new folder is watched itself
        try watcher.waitFor(library, "a second file in the new folder") { $0["new/deeper/e.png"] != nil }
        // A move between folders keeps the item.
        let b = try #require(try Self.relative(library)["old/b.png"]?.id)
        try FileManager.default.moveItem(atPath: library.path("old/b.png"), toPath: library.path("new/b.png"))
        try watcher.waitFor(library, "a move between folders") { $0["new/b.png"] != nil && $0["old/b.png"] == nil }
        #expect(try Self.relative(library)["new/b.png"]?.id == b)
        // A folder removed with what is in it.
        try FileManager.default.removeItem(atPath: library.path("new/deeper"))
        try watcher.waitFor(library, "a removed folder") { $0["new/deeper/d.png"] == nil && $0["new/deeper/e.png"] == nil }

        watcher.process.terminate() // SIGTERM: ends after the rescan under way, status 0
        watcher.process.waitUntilExit()
        #expect(watcher.process.terminationReason == .exit && watcher.process.terminationStatus == 0)
    }

    /// A folder replaced by a link to it keeps its files (the link is not followed, and they are
    /// still there through it), and they go once the link is deleted too: the rescan walked the
    /// link, and the deletion rescanned only the parent's own files, so they stayed for good.
    @Test func aFolderReplacedByALink_keepsItsFiles_untilTheLinkGoes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        for n in 0..<3 { try library.write("p/sub/\(n).png", Library.fixture("rgb.png")) }
        try library.write("p/top.png", Library.fixture("palette.png"))
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("watch-linked-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.hasPrefix("added ") })?.hasPrefix("added 4,") == true)
        let ids = try Self.relative(library).mapValues(\.id)
        try FileManager.default.moveItem(atPath: library.path("p/sub"), toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: library.path("p/sub"), withDestinationPath: outside)
        #expect(watcher.next(matching: { $0.hasPrefix("rescanned ") }) != nil)
        #expect(try Self.relative(library).mapValues(\.id) == ids)
        try FileManager.default.removeItem(atPath: library.path("p/sub"))
        try watcher.waitFor(library, "the link deleted") { $0.keys.sorted() == ["p/top.png"] }
    }

    /// A file moved from one root of the watch to another keeps its item: the folders of every
    /// root changed in a round are scanned again in one scan (each root's in a scan of its own
    /// removed the file from the first and added it to the second as a new item).
    @Test func aFileMovedBetweenTwoRootsKeepsItsItem_eitherWay() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a/x.png", Library.fixture("rgb.png"))
        try library.write("b/y.jpg", Library.fixture("baseline.jpg"))
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", library.path("a"), library.path("b")])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.hasPrefix("added ") }) == "added 2, updated 0, moved 0, removed 0, unchanged 0, unsupported 0, failed 0")
        let before = try Self.relative(library)
        try FileManager.default.moveItem(atPath: library.path("a/x.png"), toPath: library.path("b/x.png")) // to the later root
        try watcher.waitFor(library, "a move to the later root") { $0["b/x.png"] != nil && $0["a/x.png"] == nil }
        #expect(try Self.relative(library)["b/x.png"]?.id == before["a/x.png"]?.id)
        try FileManager.default.moveItem(atPath: library.path("b/y.jpg"), toPath: library.path("a/y.jpg")) // to the earlier root
        try watcher.waitFor(library, "a move to the earlier root") { $0["a/y.jpg"] != nil && $0["b/y.jpg"] == nil }
        #expect(try Self.relative(library)["a/y.jpg"]?.id == before["b/y.jpg"]?.id)
    }

    /// On PostgreSQL, which locks each root, a root another process is scanning does not hold
    /// back the other roots' changes of the same round: they are scanned together (a file moved
    /// between two of them keeps its item), and the busy root's once it is free.
    @Test func onPostgresARootAnotherScanHolds_doesNotHoldBackTheOthers() throws {
        let library = try Library(.postgres)
        try library.write("a/x.png", Library.fixture("rgb.png"))
        try library.write("b/y.jpg", Library.fixture("baseline.jpg"))
        try library.write("c/z.gif", Library.fixture("animated.gif"))
        let catalog = try library.catalog()
        let roots = [library.path("a"), library.path("b"), library.path("c")]
        let stop = StopFlag()
        let watching = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            try? catalog.watch(roots, stop: stop) { event in
                if case .watching = event { watching.withLock { $0 = true } }
            }
        }.start()
        try waitFor { watching.withLock { $0 } }
        let x = try #require(try Self.relative(library)["a/x.png"]?.id)
        // Another scan of b, holding its root's lock.
        var other = Optional(try library.catalog().store.lockForScanning(roots: [Data(library.path("b").utf8)]))
        try library.write("b/new.jpg", Library.fixture("progressive.jpg"))
        try FileManager.default.moveItem(atPath: library.path("a/x.png"), toPath: library.path("c/x.png"))
        try waitFor { try Self.relative(library)["c/x.png"] != nil }
        #expect(try Self.relative(library)["c/x.png"]?.id == x, "moved between the two free roots, in one scan")
        #expect(try Self.relative(library)["a/x.png"] == nil)
        #expect(try Self.relative(library)["b/new.jpg"] == nil, "b waits for the other scan")
        other = nil
        try waitFor { try Self.relative(library)["b/new.jpg"] != nil }
        stop.stop()
        #expect(done.wait(timeout: .now() + 30) == .success)
        withExtendedLifetime(other) {}
    }

    /// A root whose folder goes (moved away, as a disk unmounted or a folder replaced) removes
    /// nothing (it removed every item), and what happens in the folder moved away is not taken
    /// for the root's; a folder at the root's path again is watched and scanned whole.
    @Test func aRootThatGoesRemovesNothing_andOneThatComesBackIsWatchedAgain() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("sub/b.png", Library.fixture("rgb.png"))
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", "--json", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.contains("\"added\":2") }) != nil)
        let away = library.root.path + ".away"
        try FileManager.default.moveItem(atPath: library.root.path, toPath: away)
        let gone = try #require(watcher.next(matching: { $0.hasPrefix("{\"rescanned\"") }))
        #expect(gone.contains("\"removed\":0"), "\(gone)")
        #expect(try library.items().count == 2, "nothing removed while the root is missing")
        // Back: a new folder at the root's path, with a file of its own.
        try FileManager.default.createDirectory(atPath: library.root.path, withIntermediateDirectories: false)
        try library.write("c.png", Library.fixture("palette.png"))
        try watcher.waitFor(library, "the root made again") { $0["c.png"] != nil && $0["a.jpg"] == nil && $0["sub/b.png"] == nil }
        try library.write("d.png", Library.fixture("rgb.png"))
        try watcher.waitFor(library, "a file in the new root") { $0["d.png"] != nil }
    }

    /// A catalog kept in the folder it watches: the scans' own writes to it (the database, its
    /// -wal, -shm and layouts) are no file event (each started a rescan after every rescan,
    /// forever), while a file of the user's whose name begins as the catalog's is one. Events
    /// made before the watcher is read: nothing here waits on time.
    @Test func theCatalogsOwnFilesAreNoEvent_butAUsersFileNamedLikeItIs() throws {
        let library = try Library()
        try FileManager.default.createDirectory(at: library.root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let root = library.root.path
        let watcher = try FolderWatcher(includeHidden: false)
        watcher.add(root: root, folder: Array(root.utf8))
        watcher.ignored = (Array(root.utf8), Set(SQLiteStore.fileSuffixes.map { Array("catalog\($0)".utf8) }))
        for name in ["catalog", "catalog-wal", "catalog-shm", "catalog.lock", "catalog.layouts", "catalog.layouts-wal"] { try library.write(name, Data("x".utf8)) }
        try library.write("sub/marker.png", Library.fixture("rgb.png"))
        let first = watcher.wait(timeout: .seconds(10), quiet: .milliseconds(100), longest: .seconds(10))
        #expect(first.folders[root].map { Set($0.keys) } == [Array((root + "/sub").utf8)], "only the folder with the marker")
        try library.write("catalog-cover.jpg", Library.fixture("baseline.jpg"))
        let second = watcher.wait(timeout: .seconds(10), quiet: .milliseconds(100), longest: .seconds(10))
        #expect(second.folders[root]?[Array(root.utf8)] != nil, "a file of the user's")
    }

    /// A folder that arrives unreadable cannot be watched; once its permissions let the watcher
    /// read it, it is scanned and watched (it was scanned once, then never watched).
    @Test func aFolderThatArrivesUnreadableIsWatchedOnceItCanBeRead() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("x.png", Library.fixture("rgb.png"))
        let base = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        for folder in [base, library.root.path] { try #require(chmod(folder, 0o777) == 0) }
        // Root reads every folder: the watcher runs as nobody then.
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", "--json", library.root.path],
                                  runAs: getuid() == 0 ? ["/sbin/runuser", "-u", "nobody", "--"] : [])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.contains("\"added\":1") }) != nil)
        let outside = URL(fileURLWithPath: base).appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        try Library.fixture("palette.png").write(to: outside.appendingPathComponent("l1.png"))
        try #require(chmod(outside.path, 0o000) == 0)
        try FileManager.default.moveItem(atPath: outside.path, toPath: library.path("locked"))
        #expect(watcher.next(matching: { $0.hasPrefix("{\"rescanned\"") }) != nil)
        #expect(try WatchTests.relative(library)["locked/l1.png"] == nil, "unreadable yet")
        try #require(chmod(library.path("locked"), 0o755) == 0)
        try watcher.waitFor(library, "the folder once readable") { $0["locked/l1.png"] != nil }
        try library.write("locked/l2.png", Library.fixture("rgb.png"))
        try watcher.waitFor(library, "a file in it, once watched") { $0["locked/l2.png"] != nil }
    }

    /// A file added to a folder rescans that folder's own files, not the folders under it;
    /// a folder moved in is scanned whole.
    @Test func aFileEventRescansItsFolderOnly_aFolderMovedInIsScannedWhole() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let bytes = try Library.fixture("rgb.png")
        try library.write("top.png", bytes)
        for n in 0..<40 { try library.write("deep/\(n / 10)/\(n).png", bytes) }
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("watch-outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        for n in 0..<5 { try bytes.write(to: outside.appendingPathComponent("\(n).png")) }
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", "--json", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.contains("\"added\":41") }) != nil)
        try library.write("second.png", bytes)
        let line = try #require(watcher.next(matching: { $0.hasPrefix("{\"rescanned\"") }))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["added"] as? Int == 1 && object["files"] as? Int == 2, "only the root's own files were looked at: \(line)")
        #expect(try library.items().count == 42, "nothing under the subfolders vanished")
        try FileManager.default.moveItem(at: outside, to: library.root.appendingPathComponent("moved-in"))
        try watcher.waitFor(library, "a folder moved in") { $0.keys.filter { $0.hasPrefix("moved-in/") }.count == 5 }
    }

    @Test func aBurstOfCopiesIsOneRescan() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("first.jpg", Library.fixture("baseline.jpg"))
        let watcher = try Watcher(["scan", "--db", library.catalogPath, "--watch", "--json", library.root.path])
        defer { watcher.process.terminate(); watcher.process.waitUntilExit() }
        #expect(watcher.next(matching: { $0.contains("\"added\":1") }) != nil)
        let bytes = try Library.fixture("rgb.png")
        // The watcher rescans after 500 ms of quiet, or 5 s into a burst: a writer stalled that
        // long between two copies (a loaded machine) splits the burst.
        let burst = ContinuousClock.now
        var last = burst, stalls = 0
        for n in 0..<300 {
            try library.write(String(format: "burst/%03d.png", n), bytes)
            if ContinuousClock.now - last >= .milliseconds(400) { stalls += 1 }
            last = ContinuousClock.now
        }
        stalls += Int((last - burst) / .seconds(5))
        var added = 0, rounds = 0
        while added < 300, let line = watcher.next(matching: { $0.hasPrefix("{\"rescanned\"") }) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            added += object["added"] as? Int ?? 0
            rounds += 1
        }
        #expect(added == 300)
        // The folder's creation may open a round of its own.
        #expect(rounds <= 2 + stalls, "300 copies in a burst (\(stalls) stalls) took \(rounds) rescans")
        #expect(try library.items().count == 301)
    }
}

extension WatchTests {
    @Test func pastTheWatchLimitItSaysSoOnceAndRescansEverything() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        try library.write("b/two.jpg", Library.fixture("cmyk.jpg"))
        let process = Process()
        process.executableURL = BuiltTool.catalog
        process.arguments = ["scan", "--db", library.catalogPath, "--watch", "--watch-folder-limit", "1", "--rescan-interval", "1",
                             library.root.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var lines = LineReader(out.fileHandleForReading)
        while let line = lines.next(), !line.hasPrefix("added ") {}
        // b is not watched: a file there shows at the next full rescan.
        try library.write("b/three.jpg", Library.fixture("restart.jpg"))
        while try Self.relative(library)["b/three.jpg"] == nil {
            guard lines.next() != nil else { Issue.record("the watcher ended first"); return }
        }
        process.terminate()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.components(separatedBy: "inotify watch limit").count == 2, "said once: \(stderr)")
        #expect(process.terminationStatus == 0)
    }
}
