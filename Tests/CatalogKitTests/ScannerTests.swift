import CatalogKit
import CatalogModel
import Foundation
import CatalogStore
import GRDB
import ImageProbe
import Testing

extension Library {
    /// Images, a text file, a broken image and a hidden folder's image, in two folders.
    static func standardTree(_ backend: Backend = .sqlite) throws -> Library {
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
}

@Suite struct ScannerTests {
    /// A catalog kept in a folder it scans (`cd ~/Pictures; catalog scan --db photos.sqlite .`)
    /// passes over its own files: its database, journals, locks and layouts file were counted
    /// as unsupported, the empty lock files as failed ("the file is empty") on every scan. Through
    /// a link to it too: the lock and layouts file are the linked file's, shared by both names.
    @Test func aCatalogInAFolderItScans_passesOverItsOwnFiles() throws {
        let library = try Library.standardTree()
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
        let library = try Library.standardTree()
        let open = try library.catalog()
        _ = try open.scan([library.root.path])
        let backup = library.catalogPath + ".backup"
        try DatabaseQueue(path: library.catalogPath).writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [backup]) }
        try library.write("new.jpg", Library.fixture("baseline.jpg"))
        try #require(rename(backup, library.catalogPath) == 0)
        // A page and the sections of a configuration never laid out read a snapshot: they were
        // laid out from the old file, and a server answered 200 for them between its 503s.
        let never = LayoutConfiguration(width: 377)
        for call in [{ _ = try open.generation() }, { _ = try open.items(order: .path) }, { _ = try open.scan([library.root.path]) },
                     { _ = try open.page(PageRequest(configuration: never, position: .offset(0), height: 800)) },
                     { var monthly = LayoutConfiguration(width: 378); monthly.sections = .month; _ = try open.sections(monthly) }] {
            #expect { try call() } throws: { error in
                guard case StoreError.unreachable(let path, let reason) = error else { return false }
                return path == library.catalogPath && reason.hasPrefix("the file was replaced since this process opened it")
                    && (error as? StoreError)?.isFileReplaced == true
            }
        }
        #expect(StoreError.fileReplaced(path: "c.sqlite", removed: false).description.hasSuffix(
            ": restart the process to open the one there now; what was committed before is kept."), "not \"try again once it is back\"")
        let reopened = try library.catalog()
        #expect(try reopened.scan([library.root.path]).added == 1, "new.jpg, into the file there now")
        try FileManager.default.removeItem(atPath: library.catalogPath)
        #expect { _ = try reopened.generation() } throws: { error in
            guard case StoreError.unreachable(_, let reason) = error else { return false }
            return reason.hasPrefix("the file was removed since this process opened it")
        }
    }

    @Test(arguments: Backend.allCases) func firstScanFindsImages_reportsTheRest_andSkipsHiddenFiles(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
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
        // A scan without the option (a cron job that left it out) keeps what it does not enter
        // while it is there, and says so; it removed it, and its id with it. --prune removes it.
        let idBefore = try library.items()[library.path(".hidden/e.jpg")]?.id
        let plain = try library.scan()
        #expect(plain.removed == 0 && plain.problems == ["\(library.root.path): 1 known file under hidden names, which this scan does not enter without "
            + "--include-hidden, still there; kept, not removed (a scan with --include-hidden scans them, `catalog scan --prune` removes them from the catalog)"], "\(plain.problems)")
        let idAfter = try library.items()[library.path(".hidden/e.jpg")]?.id
        #expect(idBefore != nil && idAfter == idBefore)
        // A copy of it, and a hard link to it, are new files: kept where it is, it did not move
        // (the copy took its id, and the next scan with the option made it a new item).
        try FileManager.default.copyItem(atPath: library.path(".hidden/e.jpg"), toPath: library.path("copy.jpg"))
        try FileManager.default.linkItem(atPath: library.path(".hidden/e.jpg"), toPath: library.path("link.jpg"))
        let copied = try library.scan()
        #expect((copied.added, copied.moved, copied.removed) == (2, 0, 0), "\(copied)")
        #expect(try library.items()[library.path(".hidden/e.jpg")]?.id == idBefore)
        for name in ["copy.jpg", "link.jpg"] { try FileManager.default.removeItem(atPath: library.path(name)) }
        #expect(try library.scan().removed == 2)
        var prune = ScanOptions()
        prune.prune = true
        let pruned = try library.scan(options: prune)
        #expect(pruned.removed == 1 && pruned.problems.isEmpty, "\(pruned.problems)")
        #expect(try library.items()[library.path(".hidden/e.jpg")] == nil)
        // Deleted, it goes without --prune, as any file gone.
        #expect(try library.scan(options: ScanOptions(includeHidden: true)).added == 1)
        try FileManager.default.removeItem(atPath: library.path(".hidden/e.jpg"))
        let gone = try library.scan()
        #expect(gone.removed == 1 && gone.problems.isEmpty, "\(gone.problems)")
    }

    /// A root inside another one given (or given twice) is walked once, with the outer one:
    /// nothing counted twice, a problem saying so, and the result of scanning the outer alone.
    @Test func aRootInsideAnotherOrGivenTwiceIsScannedOnce() throws {
        let library = try Library.standardTree()
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

    /// A root inside another one given that is missing or a file is still an error (the CLI's
    /// exit 1), as it is given alone; the outer root is scanned all the same.
    @Test func aRootInsideAnotherThatCannotBeScannedIsAnError() throws {
        let library = try Library.standardTree()
        let file = try #require(try FileManager.default.subpathsOfDirectory(atPath: library.root.path).sorted().first {
            !$0.hasPrefix(".") && ($0.hasSuffix(".jpg") || $0.hasSuffix(".png"))
        })
        let summary = try library.scan([library.root.path, library.root.path + "/Inbxo", library.path(file)])
        #expect(summary.added == 4 && summary.problems.isEmpty, "\(summary)")
        #expect(summary.unscannedRoots.count == 2, "\(summary.unscannedRoots)")
        #expect(summary.unscannedRoots.first == "\(library.root.path)/Inbxo: No such file or directory; it is inside \(library.root.path), whose scan went on there"
                && summary.unscannedRoots.last?.hasPrefix(library.path(file) + ": not a folder") == true, "\(summary.unscannedRoots)")
    }

    /// A symbolic link to a folder, given as a root under another root given: the outer walk does
    /// not follow it (without --follow-symlinks), so it is walked as a root of its own, and not
    /// left out as "inside" the other and never looked into. With --follow-symlinks the outer
    /// walk enters it, and it is scanned once with the outer one.
    @Test func aLinkGivenAsARootUnderAnotherIsWalked() throws {
        let library = try Library.standardTree()
        try library.write(".elsewhere/f.png", Library.fixture("rgb.png"))
        let linked = library.root.path + "/linked"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: ".elsewhere")
        let summary = try library.scan([library.root.path, linked])
        #expect(summary.added == 5 && summary.problems.isEmpty && summary.unscannedRoots.isEmpty, "\(summary)")
        #expect(try library.items()[library.path("linked/f.png")] != nil)
        #expect(Scanner.outermost([library.root.path, linked]).walked == [library.root.path, linked])
        #expect(Scanner.outermost([library.root.path, linked], options: ScanOptions(followSymlinks: true)).walked == [library.root.path])
        // A link to a folder the outer walk reaches where it is: the same files, walked once
        // there (walked as a root of its own, they were indexed twice, under both paths).
        let alias = library.root.path + "/alias"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: "2024")
        let once = try library.scan([library.root.path, alias])
        #expect(once.problems == ["\(alias) is inside \(library.root.path): scanned once"] && once.added == 0, "\(once)")
        #expect(try library.items().keys.filter { $0.contains("/alias/") }.isEmpty)
    }

    /// A root inside another one that the other's walk does not enter (a hidden folder) stays a
    /// root of its own, its files its own: a rescan keeps them and their ids (the outer root took
    /// them for vanished, and they came back with new ids at the scan after), and a file deleted
    /// from it goes. With --include-hidden it is walked with the other.
    @Test(arguments: Backend.allCases) func aRootTheOuterWalkDoesNotEnterIsScannedAsARoot(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
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
        let library = try Library.standardTree(backend)
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
        let library = try Library.standardTree(backend)
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


    @Test(arguments: Backend.allCases) func aMissingRootRemovesNothing_andSaysSo(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
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
        let library = try Library.standardTree(backend)
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
        let library = try Library.standardTree(backend)
        try FileManager.default.createSymbolicLink(atPath: library.path("2024/loop"), withDestinationPath: library.root.path)
        try FileManager.default.createSymbolicLink(atPath: library.path("link.jpg"), withDestinationPath: library.path("a.jpg"))
        let plain = try library.scan()
        #expect(plain.added == 4)
        let followed = try library.scan(options: ScanOptions(followSymlinks: true))
        #expect(followed.added == 1, "link.jpg; the loop back to the root is entered once")
        #expect(try library.items()[library.path("link.jpg")] != nil)
        // Links that lead nowhere, followed, are said (they were passed over without a word).
        try FileManager.default.createSymbolicLink(atPath: library.path("gone.jpg"), withDestinationPath: library.path("nothing.jpg"))
        try FileManager.default.createSymbolicLink(atPath: library.path("ring1"), withDestinationPath: library.path("ring2"))
        try FileManager.default.createSymbolicLink(atPath: library.path("ring2"), withDestinationPath: library.path("ring1"))
        let nowhere = try library.scan(options: ScanOptions(followSymlinks: true))
        #expect(nowhere.problems.sorted() == ["\(library.path("gone.jpg")): a link to nothing (its target is gone); skipped",
                                              "\(library.path("ring1")): a loop of links; skipped", "\(library.path("ring2")): a loop of links; skipped"],
                "\(nowhere.problems)")
        #expect((nowhere.removed, nowhere.added) == (0, 0), "nothing under the folder taken for gone")
        // Not followed now, the link found through it is still there: kept, and said (it was removed).
        let plainAgain = try library.scan()
        #expect(plainAgain.removed == 0 && plainAgain.problems == ["\(library.root.path): 1 known file reached through symbolic links, which this "
            + "scan does not follow without --follow-symlinks, still there; kept, not removed (a scan with --follow-symlinks scans them, `catalog scan --prune` removes them from the catalog)"],
            "\(plainAgain.problems)")
        #expect(try library.items()[library.path("link.jpg")] != nil)
        var prune = ScanOptions()
        prune.prune = true
        #expect(try library.scan(options: prune).removed == 1)
        #expect(try library.scan().problems.isEmpty, "links are not followed unless asked")
    }

    @Test(arguments: Backend.allCases) func aSecondScanWhileOneIsWritingStopsWithAClearMessage(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        let store = try library.catalog()
        let lock = try store.store.lockForWriting()
        #expect(throws: StoreError.busy(path: store.location)) { try store.scan([library.root.path]) }
        withExtendedLifetime(lock) {}
        #expect(StoreError.busy(path: "x").description.contains("another scan, import or `catalog cluster` is writing"))
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
