import CatalogKit
import CatalogModel
import Foundation
import CatalogStore
import GRDB
import ImageProbe
import Testing

@Suite struct ScannerTests {
    func standardLibrary(_ backend: Backend = .sqlite) throws -> Library {
        let library = try Library(backend)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("b.png", Library.fixture("rgb.png"))
        try library.write("2024/c.jpg", Library.fixture("progressive.jpg"))
        try library.write("2024/d.png", Library.fixture("interlaced.png"))
        try library.write("2024/notes.txt", Data("not an image".utf8))
        try library.write("2024/broken.png", Library.fixture("rgb.png").prefix(20))
        try library.write(".hidden/e.jpg", Library.fixture("baseline.jpg"))
        return library
    }

    /// A catalog kept in a folder it scans (`cd ~/Pictures; catalog scan --db photos.sqlite .`)
    /// passes over its own files: its database, journals, locks and layouts file were counted
    /// as unsupported, the empty lock files as failed ("the file is empty") on every scan. Through
    /// a link to it too: the lock and layouts file are the linked file's, shared by both names.
    @Test func aCatalogInAFolderItScans_passesOverItsOwnFiles() throws {
        let library = try standardLibrary()
        // The first time, as a user types it: `cd Pictures; catalog scan --db photos.sqlite .`
        // (a new catalog's path given relative).
        let relative = Process()
        relative.executableURL = BuiltTool.catalog
        relative.arguments = ["scan", "--db", "photos.sqlite", ".", "--json"]
        relative.currentDirectoryURL = library.root
        let out = Pipe()
        relative.standardOutput = out
        try relative.run()
        let summary = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        relative.waitUntilExit()
        #expect(summary.contains(#""unsupported":1,"failed":1,"#) && summary.contains(#""files":6,"#), "\(summary)")
        try FileManager.default.removeItem(atPath: library.root.path + "/photos.sqlite")
        for suffix in ["-wal", "-shm", ".lock", ".layouts", ".layouts.lock"] { try? FileManager.default.removeItem(atPath: library.root.path + "/photos.sqlite" + suffix) }
        let inside = library.root.path + "/photos.sqlite"
        let link = library.root.path + "/2024/link.sqlite"
        let first = try Catalog.open(at: inside).scan([library.root.path])
        #expect(first.files == 6 && first.failed == 1 && first.unsupported == 1, "notes.txt and broken.png only: \(first)")
        let again = try Catalog.open(at: inside).scan([library.root.path])
        #expect(again.files == 6 && again.unchanged == 6 && again.added == 0, "\(again)")
        #expect(try Catalog.open(at: inside).fileErrors().map { URL(fileURLWithPath: PathText.display($0.path)).lastPathComponent } == ["broken.png"])
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: inside)
        let through = try Catalog.open(at: link)
        #expect(try through.scan([library.root.path]).unchanged == 6)
        #expect(try through.stats().bytesOnDisk == (try Catalog.open(at: inside).stats().bytesOnDisk), "the file's sizes, not the link's")
        let names = try FileManager.default.contentsOfDirectory(atPath: library.root.path + "/2024")
        #expect(!names.contains { $0.hasPrefix("link.sqlite.") }, "no lock or layouts file of its own beside the link: \(names)")
        // Another process holding the write lock through the other name is seen.
        let writer = try Catalog.open(at: inside).store.lockForWriting()
        #expect(throws: StoreError.self) { _ = try through.store.lockForWriting() }
        withExtendedLifetime(writer) {}
    }

    /// With --follow-symlinks, a link to the folder that holds the catalog reaches its files
    /// under other paths: they are passed over there too (they were stored as unsupported, and
    /// the empty lock files as failed, read again at every scan).
    @Test func aLinkFollowedToTheCatalogsFolder_passesOverItsOwnFiles() throws {
        let library = try Library()
        try library.write("photos/a.jpg", Library.fixture("baseline.jpg"))
        let folder = library.root.path + "/catalog"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: library.path("photos/link"), withDestinationPath: folder)
        let options = ScanOptions(followSymlinks: true)
        for _ in 0..<2 {
            let summary = try Catalog.open(at: folder + "/c.sqlite").scan([library.path("photos")], options: options)
            #expect((summary.files, summary.unsupported, summary.failed) == (1, 0, 0), "\(summary)")
        }
        #expect(try Catalog.open(at: folder + "/c.sqlite").fileErrors().isEmpty)
    }

    /// A catalog whose file is replaced (a backup moved into its place) or removed under an
    /// open process: its connections still have the old file, which nobody else sees. Every call
    /// fails, saying so, instead of reading or writing the old file (a server served a deleted
    /// catalog, and stored its layouts beside the new one); a new opening uses the new file.
    @Test func aCatalogFileReplacedOrRemovedWhileOpen_failsEveryCall_andANewOpeningUsesTheNewFile() throws {
        let library = try standardLibrary()
        let open = try library.catalog()
        _ = try open.scan([library.root.path])
        let backup = library.catalogPath + ".backup"
        try DatabaseQueue(path: library.catalogPath).writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [backup]) }
        try library.write("new.jpg", Library.fixture("baseline.jpg"))
        try #require(rename(backup, library.catalogPath) == 0)
        for call in [{ _ = try open.generation() }, { _ = try open.items(order: .path) }, { _ = try open.scan([library.root.path]) }] {
            #expect { try call() } throws: { error in
                guard case StoreError.unreachable(let path, let reason) = error else { return false }
                return path == library.catalogPath && reason.hasPrefix("the file was replaced since this process opened it")
            }
        }
        let reopened = try library.catalog()
        #expect(try reopened.scan([library.root.path]).added == 1, "new.jpg, into the file there now")
        try FileManager.default.removeItem(atPath: library.catalogPath)
        #expect { _ = try reopened.generation() } throws: { error in
            guard case StoreError.unreachable(_, let reason) = error else { return false }
            return reason.hasPrefix("the file was removed since this process opened it")
        }
    }

    @Test(arguments: Backend.allCases) func firstScanFindsImages_reportsTheRest_andSkipsHiddenFiles(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        let summary = try library.scan()
        #expect((summary.added, summary.unsupported, summary.failed, summary.files) == (4, 1, 1, 6))
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        let items = try library.items()
        #expect(items.count == 4)
        #expect(items[library.path("2024/d.png")].map { [$0.width, $0.height] } == [33, 17])
        #expect(items[library.path(".hidden/e.jpg")] == nil)
        let errors = try library.catalog().fileErrors()
        #expect(errors.map { PathText.display($0.path) } == [library.path("2024/broken.png")])
        #expect(errors.first?.reason.contains("truncated PNG") == true)
        #expect(try library.catalog().generation() > 0)
        let hidden = try library.scan(options: ScanOptions(includeHidden: true))
        #expect(hidden.added == 1)
    }

    /// A root inside another one given (or given twice) is walked once, with the outer one:
    /// nothing counted twice, a problem saying so, and the result of scanning the outer alone.
    @Test func aRootInsideAnotherOrGivenTwiceIsScannedOnce() throws {
        let library = try standardLibrary()
        let inner = library.root.path + "/2024"
        let summary = try library.scan([inner, library.root.path, library.root.path + "/"])
        #expect((summary.added, summary.unchanged, summary.files) == (4, 0, 6), "\(summary)")
        #expect(summary.problems == ["\(inner) is inside \(library.root.path): scanned once",
                                     "\(library.root.path)/ is given twice: scanned once"])
        #expect(try library.items().count == 4)
        let again = try library.scan([library.root.path])
        #expect((again.added, again.unchanged, again.removed) == (0, summary.files, 0))
        // Siblings whose names share a prefix are not inside each other.
        #expect(Scanner.outermost(["/p/a", "/p/ab", "/p/a/b"]).walked == ["/p/a", "/p/ab"])
    }

    /// A root inside another one that the other's walk does not enter (a hidden folder) stays a
    /// root of its own, its files its own: a rescan keeps them and their ids (the outer root took
    /// them for vanished, and they came back with new ids at the scan after), and a file deleted
    /// from it goes. With --include-hidden it is walked with the other.
    @Test(arguments: Backend.allCases) func aRootTheOuterWalkDoesNotEnterIsScannedAsARoot(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        let hidden = library.root.path + "/.hidden"
        try library.write(".hidden/f.png", Library.fixture("rgb.png"))
        let summary = try library.scan([library.root.path, hidden])
        #expect(summary.added == 6 && summary.problems.isEmpty, "\(summary)")
        let before = try library.items()
        let again = try library.scan([library.root.path, hidden])
        #expect((again.added, again.removed, again.unchanged) == (0, 0, 8), "\(again)")
        #expect(try library.items().mapValues(\.id) == before.mapValues(\.id))
        try FileManager.default.removeItem(atPath: library.path(".hidden/f.png"))
        #expect(try library.scan([library.root.path, hidden]).removed == 1)
        // Its files are its own when it is not scanned too: the outer root alone, a watch's rescan
        // of a folder holding it, and a scan while it is missing (moved away) remove none of them.
        let ids = try library.items().mapValues(\.id)
        #expect(try library.scan([library.root.path]).removed == 0)
        let store = try library.catalog().store
        #expect(try Scanner(store: store).run(root: library.root.path, folders: [(Array(library.root.path.utf8), true)]).removed == 0)
        try FileManager.default.moveItem(atPath: hidden, toPath: library.path("away"))
        let missing = try library.scan([library.root.path, hidden])
        #expect((missing.removed, missing.unscannedRoots.count) == (0, 1), "\(missing)")
        try FileManager.default.moveItem(atPath: library.path("away"), toPath: hidden)
        #expect(try library.scan([library.root.path, hidden]).unchanged == 7)
        #expect(try library.items().mapValues(\.id) == ids)
        // Deleted, and not given: its files go with the outer root's scan.
        try FileManager.default.removeItem(atPath: hidden)
        #expect(try library.scan([library.root.path]).removed == 1)
        #expect(Scanner.outermost([library.root.path, hidden], options: ScanOptions(includeHidden: true)).walked == [library.root.path])
    }

    /// `catalog stats`: items by format (a format met again after others, in id order, counted
    /// once with the rest), the imported ones, and the files by status.
    @Test(arguments: Backend.allCases) func statsCountItemsByFormat_theImportedOnes_andFilesByStatus(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "pin-1", width: 5, height: 5), ImportRow(line: 3, key: "pin-2", width: 5, height: 5)])
        try library.write("z.jpg", Library.fixture("restart.jpg"))
        _ = try library.scan()
        let stats = try catalog.stats()
        #expect(stats.items == 7)
        #expect(stats.itemsByFormat == ["jpeg": 3, "png": 2, "imported": 2], "\(stats.itemsByFormat)")
        #expect(stats.importedItems == 2)
        #expect((stats.files, stats.unsupportedFiles, stats.failedFiles) == (7, 1, 1))
    }

    @Test(arguments: Backend.allCases) func rescanOfAnUnchangedTreeOpensNothing_andKeepsTheGeneration(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let generation = try library.catalog().generation()
        let before = try library.items()
        // Every file's bytes are replaced by zeros of the same length, and its modification time
        // put back to the nanosecond: a scan that opened any of them would find no image there
        // (and a chmod 000 would not stop root, who runs CI).
        for name in ["a.jpg", "b.png", "2024/c.jpg", "2024/d.png", "2024/notes.txt", "2024/broken.png"] {
            let path = library.path(name)
            var status = stat()
            try #require(stat(path, &status) == 0)
            try Data(count: Int(status.st_size)).write(to: URL(fileURLWithPath: path), options: [])
            var times = [status.st_atim, status.st_mtim]
            try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        let second = try library.scan()
        #expect((second.unchanged, second.added, second.updated, second.removed, second.moved) == (6, 0, 0, 0, 0))
        #expect((second.failed, second.unsupported) == (0, 0), "nothing was probed")
        #expect(try library.catalog().generation() == generation)
        let after = try library.items()
        #expect(after.mapValues { [$0.id, Int64($0.width), Int64($0.height)] } == before.mapValues { [$0.id, Int64($0.width), Int64($0.height)] })
    }

    /// A file dated past 2262 (ext4 and XFS keep dates to 2446 and beyond; cameras with a bad
    /// clock and archives make them) or before 1677 is past what nanoseconds since 1970 hold in
    /// 64 bits: its time is held at the ends rather than stop the scan (it did, on an overflow).
    @Test(arguments: Backend.allCases) func aFileDatedPast2262IsScanned_andUnchangedAfter(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("ok.jpg", Library.fixture("baseline.jpg"))
        let future = try library.write("future.jpg", Library.fixture("baseline.jpg"))
        var times = [timespec(tv_sec: 10_413_792_000, tv_nsec: 5), timespec(tv_sec: 10_413_792_000, tv_nsec: 5)] // 2300-01-01
        try #require(utimensat(AT_FDCWD, future, &times, 0) == 0)
        let first = try library.scan()
        #expect((first.added, first.failed) == (2, 0), "\(first)")
        #expect(try library.catalog().items(order: .date).first.map { PathText.display($0.key) } == future, "the newest")
        let again = try library.scan()
        #expect((again.unchanged, again.updated) == (2, 0), "\(again)")
        #expect(WallClock.nanoseconds(times[1]) == .max)
        #expect(WallClock.nanoseconds(timespec(tv_sec: -10_413_792_000, tv_nsec: 0)) == .min)
        #expect(WallClock.nanoseconds(timespec(tv_sec: 9_223_372_036, tv_nsec: 999_999_999)) == .max, "the sum past the end")
        #expect(WallClock.nanoseconds(timespec(tv_sec: 1, tv_nsec: 2)) == 1_000_000_002)
    }

    /// The reasons that mark a file as unreadable (read again by every scan, an image keeping its
    /// item meanwhile) are the scanner's own and the probe's, which is written in ImageProbe.
    @Test func theProbesUnreadableReasonIsOneTheScanReadsAgain() {
        #expect(FileOutcome.isUnreadable(ImageProbeError.unreadable(reason: "Input/output error", errno: EIO).description))
        for outcome in [FileOutcome.cannotOpen("Permission denied"), .cannotStat("Input/output error")] {
            guard case .failed(let reason) = outcome else { Issue.record("\(outcome)"); continue }
            #expect(FileOutcome.isUnreadable(reason), "\(reason)")
        }
        for other in [ImageProbeError.empty, .truncated(.jpeg), .notARegularFile(kind: "a FIFO")] {
            #expect(!FileOutcome.isUnreadable(other.description), "\(other)")
        }
        #expect(!FileOutcome.isUnreadable(FileOutcome.importedKeyReason))
    }

    /// An image whose path is already an imported item's key is refused by the scan, as an
    /// import refuses a key that is a scanned file's path: the imported item keeps its facts,
    /// its title and its place (it was taken over, then deleted with the file), the file is a
    /// failed one that `catalog errors` explains, and the next import of the same rows still goes in.
    @Test(arguments: Backend.allCases) func anImageAtAnImportedItemsKeyIsRefused_andTheImportedItemStays(_ backend: Backend) throws {
        let library = try Library(backend)
        let taken = try library.write("taken.jpg", Library.fixture("baseline.jpg"))
        try library.write("free.jpg", Library.fixture("baseline.jpg"))
        let catalog = try library.catalog()
        let pins = [ImportRow(line: 2, key: taken, width: 736, height: 1104, url: "https://example.com/lake.jpg", title: "Lake")]
        #expect(try catalog.importItems(pins).added == 1)
        let before = try #require(try catalog.items(order: .path).first)
        let summary = try library.scan()
        #expect((summary.added, summary.failed) == (1, 1), "\(summary)")
        let imported = try #require(try catalog.items(order: .path).first { $0.isImported })
        #expect(imported == before)
        #expect(try catalog.fileErrors().map(\.reason) == [FileOutcome.importedKeyReason])
        #expect(try catalog.importItems(pins).unchanged == 1, "the import still takes its rows")
        try FileManager.default.removeItem(atPath: taken)
        _ = try library.scan()
        #expect(try catalog.items(order: .path).first { $0.isImported } == before, "the file's going leaves the item")
        #expect(try catalog.fileErrors().isEmpty)
        // A scanned image renamed onto the key (the same inode at a new path): refused there
        // too, its own item gone, where the rename used to fail every scan on the unique key.
        try FileManager.default.moveItem(atPath: library.path("free.jpg"), toPath: taken)
        let moved = try library.scan()
        #expect((moved.moved, moved.failed, moved.removed) == (0, 1, 1), "\(moved)")
        #expect(try catalog.items(order: .path).map(\.isImported) == [true])
        #expect(try catalog.items(order: .path).first == before)
        #expect(try catalog.fileErrors().map { PathText.display($0.path) } == [taken])
        #expect(try library.scan().unchanged == 1, "and stays so")
        // Copied onto the key (a new inode) and the original deleted: no adoption of a refused
        // file, where the counts said moved 1, added -1 and the original's item stayed.
        try FileManager.default.removeItem(atPath: taken)
        let other = try library.write("other.jpg", Library.fixture("baseline.jpg"))
        #expect(try library.scan().added == 1)
        try FileManager.default.copyItem(atPath: other, toPath: taken)
        try FileManager.default.removeItem(atPath: other)
        let copied = try library.scan()
        #expect((copied.added, copied.moved, copied.failed, copied.removed) == (0, 0, 1, 1), "\(copied)")
        #expect(try catalog.items(order: .path) == [before])
        // The refused file renamed off the key: read again at its new path, and added (it was
        // moved with its refusal, and stayed out of the catalog, its error naming the new path).
        try FileManager.default.moveItem(atPath: taken, toPath: library.path("photo.jpg"))
        let renamed = try library.scan()
        #expect((renamed.added, renamed.failed) == (1, 0), "\(renamed)")
        #expect(try catalog.fileErrors().isEmpty)
        #expect(try library.items()[library.path("photo.jpg")] != nil)
    }

    @Test(arguments: Backend.allCases) func touchedAndReplacedFilesAreReprobed_keepingTheirIds(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let before = try library.items()
        try library.write("a.jpg", Library.fixture("grayscale.jpg")) // replaced: 20x36 now
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: library.path("b.png")) // touched
        let summary = try library.scan()
        #expect((summary.updated, summary.added, summary.unchanged) == (2, 0, 4))
        let after = try library.items()
        #expect(after[library.path("a.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("a.jpg")].map { [$0.width, $0.height] } == [20, 36])
        #expect(after[library.path("b.png")]?.id == before[library.path("b.png")]?.id)
    }

    @Test(arguments: Backend.allCases) func deletedFilesAndRemovedFoldersAreRemoved(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        try FileManager.default.removeItem(atPath: library.path("a.jpg"))
        try FileManager.default.removeItem(atPath: library.path("2024"))
        let summary = try library.scan()
        #expect(summary.removed == 3) // a.jpg, 2024/c.jpg, 2024/d.png
        #expect(try library.items().keys.sorted() == [library.path("b.png")])
        #expect(try library.catalog().fileErrors().isEmpty, "the broken file went with its folder")
    }

    @Test(arguments: Backend.allCases) func renamedAndMovedFilesKeepTheirIds(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("renamed.jpg"))
        try FileManager.default.createDirectory(atPath: library.path("2025"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library.path("2024/c.jpg"), toPath: library.path("2025/c.jpg"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (2, 0, 0))
        let after = try library.items()
        #expect(after[library.path("renamed.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("2025/c.jpg")]?.id == before[library.path("2024/c.jpg")]?.id)
        #expect(after[library.path("a.jpg")] == nil)
    }

    /// A scan writes with SQLite's foreign keys off (their checks cost 6 % of a first scan) and
    /// keeps the files' references itself. After scans that add, turn an image into a file that
    /// is not one, rename, rewrite a renamed file, copy then delete, and hard-link, no reference
    /// dangles, a file has an item exactly when it is an image (the item whose key is its path),
    /// and the catalog's own connection has its foreign keys on again.
    @Test func scansKeepTheFilesReferences_withForeignKeysOff() throws {
        let library = try standardLibrary()
        let catalog = try library.catalog() // one connection for every scan: the pragma must come back on it
        func check(_ when: String) throws {
            let store = try #require(catalog.store as? SQLiteStore)
            #expect(try store.write { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 1, "\(when): foreign keys left off")
            try DatabaseQueue(path: library.catalogPath).read { db in
                let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                #expect(dangling.isEmpty, "\(when): \(dangling)")
                let wrong = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM files f LEFT JOIN items i ON i.id = f.item_id
                    WHERE (f.status = 0) != (i.id IS NOT NULL AND i.key = f.path)
                    """)
                #expect(wrong == 0, "\(when)")
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM files WHERE item_id IS NOT NULL") == (try Int.fetchOne(db, sql: "SELECT count(*) FROM items")), "\(when)")
            }
        }
        func scan() throws -> ScanSummary { try catalog.scan([library.root.path]) }
        _ = try scan()
        try check("after the first scan")
        try library.write("a.jpg", Data("text now".utf8)) // no longer an image: its item goes
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("moved.png"))
        try FileManager.default.removeItem(atPath: library.path("2024/c.jpg"))
        let summary = try scan()
        #expect((summary.removed, summary.moved, summary.unsupported) == (2, 1, 1), "\(summary)")
        try check("after the changes")
        try library.write("a.jpg", Library.fixture("baseline.jpg")) // an image again: a new item
        #expect(try scan().added == 1)
        try check("after the image came back")
        // Renamed and rewritten in place (same inode, other bytes: a new file, as when a deleted
        // file's inode is given to a new one); copied to a new inode then deleted (adopted);
        // hard-linked (a new file).
        try FileManager.default.moveItem(atPath: library.path("moved.png"), toPath: library.path("rewritten.png"))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.path("rewritten.png")))
        try handle.write(contentsOf: try Library.fixture("interlaced.png"))
        try handle.close()
        try FileManager.default.copyItem(atPath: library.path("2024/d.png"), toPath: library.path("copied.png"))
        try FileManager.default.removeItem(atPath: library.path("2024/d.png"))
        try #require(link(library.path("a.jpg"), library.path("linked.jpg")) == 0)
        let moves = try scan()
        #expect((moves.moved, moves.added, moves.removed) == (1, 2, 1), "\(moves)")
        #expect(try library.items()[library.path("rewritten.png")].map { [$0.width, $0.height] } == [33, 17])
        try check("after the moves and the link")
    }

    /// A file deleted and a new one made whose inode the file system reused (ext4 does at once):
    /// the new photo is a new item, not the deleted one's id with other facts. A file renamed and
    /// touched (same bytes, a new time) keeps its id. Renames stand in for the reuse: the same
    /// inode at a new path, its old path gone.
    @Test(arguments: Backend.allCases) func anInodeReusedForOtherBytesIsANewItem_butARenamedTouchedFileKeepsItsId(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("new.jpg"))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.path("new.jpg")))
        try handle.write(contentsOf: try Library.fixture("grayscale.jpg")) // other bytes, same inode
        try handle.truncate(atOffset: UInt64(try Library.fixture("grayscale.jpg").count))
        try handle.close()
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("renamed.png"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: library.path("renamed.png"))
        let summary = try library.scan()
        #expect((summary.added, summary.removed, summary.moved) == (1, 1, 1), "\(summary)")
        let after = try library.items()
        let new = try #require(after[library.path("new.jpg")])
        #expect(new.id != before[library.path("a.jpg")]?.id)
        #expect(new.width == 20 && new.height == 36)
        #expect(after[library.path("renamed.png")]?.id == before[library.path("b.png")]?.id)
    }

    /// A folder renamed is one change: its files keep their ids and the generation moves once
    /// (it moved once a file: a thousand files overran the change log, and readers saw a folder
    /// half-renamed).
    @Test(arguments: Backend.allCases) func aFolderRenamedKeepsItsIds_andMovesTheGenerationOnce(_ backend: Backend) throws {
        let library = try Library(backend)
        for index in 0..<30 {
            var bytes = try Library.fixture("baseline.jpg")
            bytes.append(contentsOf: withUnsafeBytes(of: index) { Array($0) })
            try library.write("2024/img\(index).jpg", bytes)
        }
        _ = try library.scan()
        let before = try library.items()
        let catalog = try library.catalog()
        let generation = try catalog.generation()
        try FileManager.default.moveItem(atPath: library.path("2024"), toPath: library.path("2024-trip"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (30, 0, 0), "\(summary)")
        #expect(try catalog.generation() == generation + 1)
        let after = try library.items()
        #expect(Set(after.values.map(\.id)) == Set(before.values.map(\.id)))
        #expect(after.keys.allSatisfy { $0.contains("/2024-trip/") })
    }

    /// A copy to a new inode, then the original deleted (what a move across disks does).
    @Test(arguments: Backend.allCases) func aFileCopiedThenDeletedIsAMoveByFingerprint(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.copyItem(atPath: library.path("b.png"), toPath: library.path("copied.png"))
        try FileManager.default.removeItem(atPath: library.path("b.png"))
        let generation = try library.catalog().generation()
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.updated, summary.removed) == (1, 0, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("copied.png")]?.id == before[library.path("b.png")]?.id)
        #expect(try library.catalog().generation() == generation + 1, "the move and the file's new facts: one change")
        let again = try library.scan()
        #expect((again.unchanged, again.updated, again.moved) == (6, 0, 0), "the moved file as it is now: \(again)")
    }

    /// A rename (by inode) and a copy of it (by content) in one scan: the rename keeps the item,
    /// whichever the walk meets first; the copy is new.
    @Test(arguments: Backend.allCases) func aRenamedFileKeepsItsItem_notACopyOfIt(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let id = try #require(try library.items()[library.path("b.png")]?.id)
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("z.png"))
        try FileManager.default.copyItem(atPath: library.path("z.png"), toPath: library.path("a-copy.png"))
        try FileManager.default.copyItem(atPath: library.path("z.png"), toPath: library.path("zz-copy.png"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (1, 2, 0), "\(summary)")
        let items = try library.items()
        #expect(items[library.path("z.png")]?.id == id)
        #expect(items[library.path("a-copy.png")]?.id != id && items[library.path("zz-copy.png")]?.id != id)
    }

    /// A file moved from one root of a scan to another keeps its item, whichever root is walked
    /// first: the roots' vanished files are matched with the new ones of every root, and removed
    /// only after every root is walked (the first root's were removed before the second was
    /// walked, and the file came back as a new item).
    @Test(arguments: Backend.allCases) func aFileMovedBetweenTwoRootsOfAScanKeepsItsItem_eitherWay(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a/x.png", Library.fixture("rgb.png"))
        try library.write("a/kept.jpg", Library.fixture("baseline.jpg"))
        try library.write("b/y.jpg", Library.fixture("grayscale.jpg"))
        let roots = [library.path("a"), library.path("b")]
        _ = try library.scan(roots)
        let before = try library.items()
        let generation = try library.catalog().generation()

        try FileManager.default.moveItem(atPath: library.path("a/x.png"), toPath: library.path("b/x.png")) // to the later root
        var summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("b/x.png")]?.id == before[library.path("a/x.png")]?.id)
        #expect(try library.catalog().generation() == generation + 1)

        try FileManager.default.moveItem(atPath: library.path("b/y.jpg"), toPath: library.path("a/y.jpg")) // to the earlier root
        summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("a/y.jpg")]?.id == before[library.path("b/y.jpg")]?.id)

        // Copied, then deleted (a move across disks): found by its content in the other root.
        try FileManager.default.copyItem(atPath: library.path("b/x.png"), toPath: library.path("a/x-copied.png"))
        try FileManager.default.removeItem(atPath: library.path("b/x.png"))
        summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after[library.path("a/x-copied.png")]?.id == before[library.path("a/x.png")]?.id)
        #expect(Set(after.values.map(\.id)) == Set(before.values.map(\.id)))
        let again = try library.scan(roots)
        #expect((again.unchanged, again.moved, again.added, again.removed) == (3, 0, 0, 0), "\(again)")
    }

    /// A folder of identical copies copied elsewhere, then deleted (`mv` to another disk): each
    /// file keeps its own item, found by its name (and folder) among the known files with its
    /// content, not the first of them (the ids were shuffled among the copies). Thirteen copies:
    /// more than `likeliest` weighs one by one.
    @Test(arguments: Backend.allCases) func identicalCopiesMovedByContent_eachKeepItsOwnItem(_ backend: Backend) throws {
        let library = try Library(backend)
        for n in 1...12 { try library.write("x/p\(n).png", Library.fixture("rgb.png")) }
        try library.write("y/p1.png", Library.fixture("rgb.png")) // the same name and content, another folder
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.createDirectory(atPath: library.path("z"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library.path("x"), toPath: library.path("z/x"))
        try FileManager.default.removeItem(atPath: library.path("x"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (12, 0, 0), "\(summary)")
        let after = try library.items()
        for n in 1...12 {
            #expect(after[library.path("z/x/p\(n).png")]?.id == before[library.path("x/p\(n).png")]?.id, "p\(n).png")
        }
        #expect(after[library.path("y/p1.png")]?.id == before[library.path("y/p1.png")]?.id)
    }

    /// Hard links share an inode: one of them renamed keeps its own item, though another path
    /// with that inode is still there.
    @Test(arguments: Backend.allCases) func aRenamedHardLinkKeepsItsItem(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("x.png", Library.fixture("rgb.png"))
        try FileManager.default.linkItem(atPath: library.path("x.png"), toPath: library.path("b.png"))
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("x.png"), toPath: library.path("c.png"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after[library.path("c.png")]?.id == before[library.path("x.png")]?.id)
        #expect(after[library.path("b.png")]?.id == before[library.path("b.png")]?.id)
    }

    /// Scans the library, making `renames` (relative paths, as bytes or as text) at the scan's
    /// first report: the one after the first batch is written, so the library needs a new file.
    static func scanRenamingAtTheFirstReport(_ library: Library, _ renames: [(String, String)], bytes: [([UInt8], [UInt8])] = []) throws -> ScanSummary {
        let root = Array(library.root.path.utf8) + [47]
        let all = renames.map { (Array($0.0.utf8), Array($0.1.utf8)) } + bytes
        var options = ScanOptions()
        options.batchSize = 1
        options.reportEveryBatch = true
        nonisolated(unsafe) var renamed = false
        let summary = try library.catalog().scan([library.root.path], options: options) { _ in
            guard !renamed else { return }
            renamed = true
            for (from, to) in all {
                let (old, new) = ((root + from + [0]).map { CChar(bitPattern: $0) }, (root + to + [0]).map { CChar(bitPattern: $0) })
                _ = rename(old, new)
            }
        }
        #expect(renamed)
        return summary
    }

    /// Files renamed while the walk runs keep their ids: one moved out of a folder the walk has not
    /// listed yet into one it has (met at neither name), and one moved the other way (met at both,
    /// its one link not taken for two). They are renamed at the scan's first report, when the walk,
    /// which runs at most 256 steps ahead, is still far above a folder 400 deep.
    @Test(arguments: Backend.allCases)
    func filesRenamedWhileTheWalkRunsKeepTheirIds(_ backend: Backend) throws {
        let library = try Library(backend)
        let deep = Array(repeating: "d", count: 400).joined(separator: "/")
        try library.write("\(deep)/out.jpg", Library.fixture("baseline.jpg"))
        try library.write("\(deep)/last.jpg", Library.fixture("progressive.jpg"))
        try library.write("in.png", Library.fixture("rgb.png"))
        _ = try library.scan()
        let before = try library.items()
        try library.write("new.jpg", Library.fixture("grayscale.jpg"))
        // One named with a last byte of 0xFF, which no store range can end past.
        let last = Array("last".utf8) + [0xFF]
        let summary = try Self.scanRenamingAtTheFirstReport(library, [("\(deep)/out.jpg", "out.jpg"), ("in.png", "\(deep)/in.png")],
                                                            bytes: [(Array("\(deep)/last.jpg".utf8), last)])
        #expect((summary.moved, summary.added, summary.removed) == (3, 1, 0), "\(summary)")
        let after = try library.items()
        #expect(after.count == 4)
        #expect(after[PathText.display(Data(Array(library.root.path.utf8) + [47] + last))]?.id == before[library.path("\(deep)/last.jpg")]?.id)
        #expect(after[library.path("out.jpg")]?.id == before[library.path("\(deep)/out.jpg")]?.id)
        #expect(after[library.path("\(deep)/in.png")]?.id == before[library.path("in.png")]?.id)
    }


    /// The names in a folder, in the order `readdir` gives them (the walk's).
    static func listingOrder(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// While the walk runs, a folder it has listed but not opened yet is renamed into the root,
    /// which it has listed, and a file of that folder is renamed over a new image the walk has
    /// met (and the scan stored). The folder's files move with their ids, none is stored twice,
    /// and the image's path keeps its id. The renames are made at the scan's first report, when
    /// the walk is deep in a chain of 400 folders in the folder listed before the other one.
    @Test(arguments: Backend.allCases)
    func aFolderRenamedBeforeTheWalkOpensItKeepsItsIds_andIsStoredOnce(_ backend: Backend) throws {
        let library = try Library(backend)
        for name in ["x", "y"] { try FileManager.default.createDirectory(atPath: library.path("p/\(name)"), withIntermediateDirectories: true) }
        let order = Self.listingOrder(library.path("p"))
        try #require(order.count == 2)
        let (chain, folder) = (order[0], order[1])
        let deep = "p/\(chain)/" + Array(repeating: "d", count: 400).joined(separator: "/")
        try library.write("\(deep)/deep.jpg", Library.fixture("baseline.jpg"))
        try library.write("p/\(folder)/f.jpg", Library.fixture("grayscale.jpg"))
        try library.write("p/\(folder)/g.jpg", Library.fixture("progressive.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try library.write("new.png", Library.fixture("rgb.png"))
        let summary = try Self.scanRenamingAtTheFirstReport(library, [("p/\(folder)/f.jpg", "new.png"), ("p/\(folder)", "moved")])
        #expect((summary.moved, summary.added, summary.removed) == (1, 1, 0), "\(summary)")
        var after = try library.items()
        #expect(after.count == 4, "\(after.keys.sorted())")
        #expect(after[library.path("moved/g.jpg")]?.id == before[library.path("p/\(folder)/g.jpg")]?.id)
        let newID = after[library.path("new.png")]?.id
        // The next scan reads new.png again (another file now), and f.jpg's item goes with its folder.
        let next = try library.scan()
        #expect((next.moved, next.updated, next.removed) == (0, 1, 1), "\(next)")
        after = try library.items()
        #expect(Set(after.keys) == [library.path(deep + "/deep.jpg"), library.path("moved/g.jpg"), library.path("new.png")])
        #expect(after[library.path("new.png")]?.id == newID)
    }

    /// A file renamed away and another written at its path (`cp --backup`, a camera's
    /// `latest.jpg`): the path keeps its id, the renamed file is a new item, whichever name the walk
    /// meets first; the next scan changes nothing.
    @Test(arguments: Backend.allCases)
    func aFileRenamedAwayWithAnotherWrittenAtItsPath_thePathKeepsItsId(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("m.jpg", Library.fixture("grayscale.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("a.jpg.~1~"))
        try library.write("a.jpg", Library.fixture("progressive.jpg"))
        try FileManager.default.moveItem(atPath: library.path("m.jpg"), toPath: library.path("0.jpg"))
        try library.write("m.jpg", Library.fixture("rgb.png"))
        let summary = try library.scan()
        #expect((summary.added, summary.updated, summary.moved, summary.removed) == (2, 2, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after.count == 4)
        #expect(after[library.path("a.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("m.jpg")]?.id == before[library.path("m.jpg")]?.id)
        let next = try library.scan()
        #expect((next.added, next.updated, next.moved, next.removed, next.unchanged) == (0, 0, 0, 0, 4), "\(next)")
    }

    /// Links followed to one file: each link is an item, and scans after change nothing.
    @Test(arguments: Backend.allCases)
    func twoLinksFollowedToOneFileAreTwoItemsThatStay(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("x.jpg", Library.fixture("baseline.jpg"))
        try FileManager.default.createSymbolicLink(atPath: library.path("l1.jpg"), withDestinationPath: "x.jpg")
        let options = ScanOptions(followSymlinks: true)
        #expect(try library.scan(options: options).added == 2)
        try FileManager.default.createSymbolicLink(atPath: library.path("l2.jpg"), withDestinationPath: "x.jpg")
        let summary = try library.scan(options: options)
        #expect((summary.added, summary.moved) == (1, 0), "\(summary)")
        let items = try library.items()
        for _ in 1...2 {
            let again = try library.scan(options: options)
            #expect((again.added, again.moved, again.removed, again.unchanged) == (0, 0, 0, 3), "\(again)")
            #expect(try library.items().mapValues(\.id) == items.mapValues(\.id))
        }
    }

    @Test(arguments: Backend.allCases) func aMissingRootRemovesNothing_andSaysSo(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        let count = try library.items().count
        try FileManager.default.moveItem(atPath: library.root.path, toPath: library.root.path + "-unmounted")
        let other = try Library(backend)
        try other.write("x.jpg", Library.fixture("baseline.jpg"))
        let summary = try library.scan([library.root.path, other.root.path])
        #expect(summary.removed == 0)
        #expect(summary.added == 1, "the other root is scanned all the same")
        #expect(summary.unscannedRoots.count == 1)
        #expect(summary.unscannedRoots.first?.hasPrefix(library.root.path + ": ") == true, "names the root")
        #expect(summary.unscannedRoots.first?.contains("nothing scanned or removed") == true)
        #expect(try library.items().count == count + 1)
        try FileManager.default.moveItem(atPath: library.root.path + "-unmounted", toPath: library.root.path)
    }

    @Test(.disabled(if: getuid() == 0, "root reads every folder"), arguments: Backend.allCases)
    func anUnreadableFolderIsReported_andNothingUnderItRemoved(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        _ = try library.scan()
        try #require(chmod(library.path("2024"), 0) == 0)
        defer { chmod(library.path("2024"), 0o755) }
        let summary = try library.scan()
        #expect(summary.removed == 0)
        #expect(summary.problems.contains { $0.contains("2024") })
        #expect(try library.items().count == 4)
    }

    @Test(arguments: Backend.allCases) func namesThatAreNotUTF8AreStoredAsBytes_andPrintDistinctly(_ backend: Backend) throws {
        let library = try Library(backend)
        let folder = Array(library.root.path.utf8) + [47]
        let names: [[UInt8]] = [Array("caf".utf8) + [0xE9] + Array(".jpg".utf8), Array("caf".utf8) + [0xC3, 0xA9] + Array(".jpg".utf8)]
        let jpeg = try Library.fixture("baseline.jpg")
        for name in names {
            let fd = open((folder + name + [0]).map { CChar(bitPattern: $0) }, O_WRONLY | O_CREAT, 0o644)
            try #require(fd >= 0)
            _ = jpeg.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        #expect(try library.scan().added == 2)
        let keys = try library.catalog().items(order: .path).map { [UInt8]($0.key) }
        #expect(Set(keys) == Set(names.map { folder + $0 }))
        let json = keys.map { PathText.jsonString($0) }
        #expect(Set(json).count == 2)
        #expect(json.contains { $0.hasSuffix(#"/caf\udce9.jpg""#) })
        #expect(json.contains { $0.hasSuffix("/café.jpg\"") })
    }

    @Test(arguments: Backend.allCases) func symlinksAreSkipped_unlessFollowed_andLoopsEnd(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        try FileManager.default.createSymbolicLink(atPath: library.path("2024/loop"), withDestinationPath: library.root.path)
        try FileManager.default.createSymbolicLink(atPath: library.path("link.jpg"), withDestinationPath: library.path("a.jpg"))
        let plain = try library.scan()
        #expect(plain.added == 4)
        let followed = try library.scan(options: ScanOptions(followSymlinks: true))
        #expect(followed.added == 1, "link.jpg; the loop back to the root is entered once")
        #expect(try library.items()[library.path("link.jpg")] != nil)
    }

    @Test(arguments: Backend.allCases) func aSecondScanWhileOneIsWritingStopsWithAClearMessage(_ backend: Backend) throws {
        let library = try standardLibrary(backend)
        let store = try library.catalog()
        let lock = try store.store.lockForWriting()
        #expect(throws: StoreError.busy(path: store.location)) { try store.scan([library.root.path]) }
        withExtendedLifetime(lock) {}
        #expect(StoreError.busy(path: "x").description.contains("another scan or import"))
    }

    @Test(arguments: Backend.allCases) func listOrderIsNewestFirstByCaptureThenModifiedDate_tiesByPath(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("z-old.jpg", Library.fixture("baseline.jpg"))
        try library.write("a-new.png", Library.fixture("rgb.png"))
        try library.write("m-same.png", Library.fixture("rgb.png"))
        try library.write("b-same.png", Library.fixture("rgb.png"))
        let exif = try Data(contentsOf: Library.fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/exif-be.jpg")) // taken 2019-05-06T07:08:09
        try library.write("exif.jpg", exif)
        func setDate(_ name: String, _ seconds: TimeInterval) throws {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: library.path(name))
        }
        try setDate("z-old.jpg", 1_500_000_000) // 2017
        try setDate("a-new.png", 1_700_000_000) // 2023
        try setDate("m-same.png", 1_600_000_000)
        try setDate("b-same.png", 1_600_000_000) // 2020, tie: by path
        try setDate("exif.jpg", 1_750_000_000) // its EXIF date (2019) wins over its mtime
        _ = try library.scan()
        let byDate = try library.catalog().items(order: .date).map { PathText.display($0.key).split(separator: "/").last! }
        #expect(byDate == ["a-new.png", "b-same.png", "m-same.png", "exif.jpg", "z-old.jpg"])
        let byPath = try library.catalog().items(order: .path, limit: 2, offset: 1).map { PathText.display($0.key).split(separator: "/").last! }
        #expect(byPath == ["b-same.png", "exif.jpg"])
    }

    /// The folders under `root` that this process holds open (the scan's walk runs on a thread
    /// of its own, and a folder stays open while its files wait to be handled).
    func openFolders(under root: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { fd in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
            return target.flatMap { $0.hasPrefix(root.resolvingSymlinksInPath().path) ? $0 : nil }
        }
    }

    @Test(arguments: Backend.allCases) func aTreeOfMoreFoldersThanTheWalkRunsAhead_isScannedWhole_andLeavesNoFolderOpen(_ backend: Backend) throws {
        let library = try Library(backend)
        let png = try Library.fixture("rgb.png")
        // 600 folders: more batches than the walk may hand over before the scanner takes them,
        // so the walk waits for the scanner, and the scanner for the known files, both ways.
        for folder in 0..<600 { try library.write(String(format: "f%03d/%03d.png", folder, folder), png) }
        try library.write("f000/notes.txt", Data("not an image".utf8))
        let first = try library.scan()
        #expect((first.files, first.added, first.unsupported) == (601, 600, 1))
        #expect(try openFolders(under: library.root).isEmpty)
        let again = try library.scan()
        #expect((again.files, again.unchanged, again.added, again.removed) == (601, 601, 0, 0))
        #expect(try openFolders(under: library.root).isEmpty)
        // A folder gone, and a file of the same bytes new elsewhere: a move, found after the walk.
        try FileManager.default.removeItem(atPath: library.path("f599"))
        try library.write("f000/moved.png", png)
        let changed = try library.scan()
        #expect((changed.moved, changed.added, changed.removed, changed.unchanged) == (1, 0, 0, 600))
        #expect(try library.items().count == 600)
    }
}
