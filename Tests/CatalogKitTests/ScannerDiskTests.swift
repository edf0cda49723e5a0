import CatalogKit
import CatalogModel
import Foundation
import CatalogStore
import GRDB
import Synchronization
import Testing

/// Disks under a root: mounted, unmounted, mounted again elsewhere or under another number
/// (real tmpfs and bind mounts, which take root), and `--one-file-system`.
extension ScannerTests {
    /// Whether this process may mount a tmpfs (root, outside a container that forbids it).
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-mount-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mount("tmpfs", folder, "tmpfs", 0, nil) == 0 else { return false }
        umount(folder)
        return true
    }()

    /// Mounts a fresh tmpfs at `path`, made first if it is not there (the caller unmounts it).
    static func mountTmpfs(at path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try #require(mount("tmpfs", path, "tmpfs", 0, nil) == 0, "a tmpfs at \(path)", sourceLocation: sourceLocation)
    }

    /// A root that is a disk's mount point, the disk unmounted: the folder stays, empty, on the
    /// disk above. Nothing is removed (every item was), and the summary says why.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func anUnmountedDiskUnderItsMountPointRemovesNothing(_ backend: Backend) throws {
        let library = try Library(backend)
        try Self.mountTmpfs(at: library.root.path)
        var mounted = true
        defer { if mounted { umount(library.root.path) } }
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("sub/b.png", Library.fixture("rgb.png"))
        _ = try library.scan()
        try #require(umount(library.root.path) == 0)
        mounted = false
        let summary = try library.scan()
        #expect(summary.removed == 0)
        #expect(summary.unscannedRoots.first?.contains("(an unmounted disk?); nothing removed under it") == true, "\(summary.unscannedRoots)")
        #expect(try library.items().count == 2)
        // A copy of a kept file is a new item: the unmounted disk's file keeps its own.
        let kept = try library.items()
        try library.write("c.jpg", Library.fixture("baseline.jpg"))
        let copied = try library.scan()
        #expect((copied.added, copied.moved, copied.removed) == (1, 0, 0), "\(copied)")
        #expect(try library.items()[library.path("a.jpg")]?.id == kept[library.path("a.jpg")]?.id)
        // Files deleted for good from a folder on the same disk as them are removed as ever,
        // and the disk's files are still kept.
        try FileManager.default.removeItem(atPath: library.path("c.jpg"))
        let deleted = try library.scan()
        #expect(deleted.removed == 1)
        #expect(deleted.problems.contains { $0.contains("2 known files on a disk that is not mounted now") }, "\(deleted.problems)")
        #expect(try library.items().count == 2)
    }

    /// A disk mounted in a folder under a root, then unmounted: its files are kept, the rest of
    /// the root is scanned as ever; a disk emptied while mounted loses its files.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aDiskUnmountedFromAFolderUnderARootKeepsItsFiles(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try Self.mountTmpfs(at: library.path("usb"))
        var mounted = true
        defer { if mounted { umount(library.path("usb")) } }
        try library.write("usb/b.png", Library.fixture("rgb.png"))
        try library.write("usb/trip/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("usb/trip/d.jpg", Library.fixture("progressive.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try #require(umount(library.path("usb")) == 0)
        mounted = false
        try FileManager.default.removeItem(atPath: library.path("a.jpg"))
        let summary = try library.scan()
        #expect((summary.removed, summary.added) == (1, 0), "\(summary)")
        #expect(summary.unscannedRoots.isEmpty, "\(summary.unscannedRoots)")
        #expect(summary.problems == ["\(library.path("usb")): 3 known files on a disk that is not mounted now (an unmounted disk?); kept, not removed"])
        let after = try library.items()
        #expect(Set(after.keys) == Set(before.keys).subtracting([library.path("a.jpg")]))
        // Mounted again, its files back, then emptied while mounted: its files go. (A new tmpfs
        // gets the old one's device number only while no other test mounts one meanwhile: the
        // files are written back and scanned first, so the test does not count on it.)
        try Self.mountTmpfs(at: library.path("usb"))
        mounted = true
        try library.write("usb/b.png", Library.fixture("rgb.png"))
        try library.write("usb/trip/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("usb/trip/d.jpg", Library.fixture("progressive.jpg"))
        #expect(try library.scan().removed == 0)
        try FileManager.default.removeItem(atPath: library.path("usb/b.png"))
        try FileManager.default.removeItem(atPath: library.path("usb/trip"))
        #expect(try library.scan().removed == 3)
        #expect(try library.items().isEmpty)
    }

    /// Sets a number the catalog holds for files (`device` or `inode`), as if their disk had
    /// given it.
    static func set(_ column: String, of relatives: [String], to value: Int64, in library: Library) throws {
        for relative in relatives {
            let path = Data(library.path(relative).utf8)
            switch library.backend {
            case .sqlite:
                // Waiting out a lock a catalog closing a moment before may still hold (its checkpoint).
                var configuration = Configuration()
                configuration.busyMode = .timeout(10)
                try DatabaseQueue(path: library.catalogPath, configuration: configuration).write { db in
                    try db.execute(sql: "UPDATE files SET \(column) = ? WHERE path = ?", arguments: [value, path])
                }
            case .postgres:
                let hex = path.map { String(format: "%02x", $0) }.joined()
                _ = try TestPostgres.psql(OrderDataTests.database(library), "UPDATE files SET \(column) = \(value) WHERE path = '\\x\(hex)'::bytea")
            }
        }
    }

    /// The device number of the disk that holds `path`.
    static func device(of path: String) throws -> Int64 {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return Int64(bitPattern: UInt64(info.st_dev))
    }

    /// A disk unmounted while another disk, in another folder, has the number it had (the kernel
    /// gives an unmounted disk's number to the next disk mounted: nas1 is unmounted, and the
    /// number nas2 has now was nas1's). The catalog is made to hold that number for nas1's
    /// files, as the kernel would have given it. nas1's files are kept, at this scan and the
    /// next, while a file deleted from nas2 goes.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aDiskWhoseNumberAnotherDiskNowHasKeepsItsFiles(_ backend: Backend) throws {
        let library = try Library(backend)
        var mounted: [String] = []
        defer { for name in mounted { umount(library.path(name)) } }
        for name in ["nas1", "nas2"] {
            try Self.mountTmpfs(at: library.path(name))
            mounted.append(name)
        }
        try library.write("nas1/a.jpg", Library.fixture("baseline.jpg"))
        try library.write("nas1/trip/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("nas2/b.png", Library.fixture("rgb.png"))
        try library.write("nas2/d.jpg", Library.fixture("progressive.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try #require(umount(library.path("nas1")) == 0)
        mounted = ["nas2"]
        try Self.set("device", of: ["nas1/a.jpg", "nas1/trip/c.jpg"], to: try Self.device(of: library.path("nas2")), in: library)
        try FileManager.default.removeItem(atPath: library.path("nas2/d.jpg"))
        for round in 1...2 {
            let summary = try library.scan()
            #expect((summary.removed, summary.added, summary.moved) == (round == 1 ? 1 : 0, 0, 0), "round \(round): \(summary)")
            #expect(summary.problems == ["\(library.path("nas1")): 2 known files on a disk that is not mounted now (an unmounted disk?); kept, not removed"],
                    "round \(round)")
            let after = try library.items()
            #expect(Set(after.keys) == Set(before.keys).subtracting([library.path("nas2/d.jpg")]), "round \(round)")
            for name in ["nas1/a.jpg", "nas1/trip/c.jpg", "nas2/b.png"] { #expect(after[library.path(name)]?.id == before[library.path(name)]?.id) }
        }
        // A rename on nas2 into a folder named as nas2 is (the paths end alike: nas2/b.png) moves
        // that file alone.
        try FileManager.default.createDirectory(atPath: library.path("nas2/nas2"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library.path("nas2/b.png"), toPath: library.path("nas2/nas2/b.png"))
        let renamed = try library.scan()
        #expect((renamed.removed, renamed.added, renamed.moved) == (0, 0, 1), "\(renamed)")
        #expect(try library.items()[library.path("nas1/a.jpg")]?.id == before[library.path("nas1/a.jpg")]?.id)
        // A copy of nas1's c.jpg on nas2 that the file system gave c.jpg's inode (a fresh file
        // system filled in the same order does): a new item, c.jpg's kept.
        try library.write("nas2/copy.jpg", Library.fixture("grayscale.jpg"))
        var info = stat()
        try #require(stat(library.path("nas2/copy.jpg"), &info) == 0)
        try Self.set("inode", of: ["nas1/trip/c.jpg"], to: Int64(bitPattern: UInt64(info.st_ino)), in: library)
        let copied = try library.scan()
        #expect((copied.removed, copied.added, copied.moved) == (0, 1, 0), "\(copied)")
        #expect(try library.items()[library.path("nas1/trip/c.jpg")]?.id == before[library.path("nas1/trip/c.jpg")]?.id)
    }

    /// A disk unmounted from a folder that then gets a file at one of the disk's paths (a backup
    /// job writing into the empty mount point): another file, on another disk, which says nothing
    /// of the unmounted disk; its other files are kept.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aFileWrittenIntoAnUnmountedDisksFolderLeavesItsFilesKept(_ backend: Backend) throws {
        let library = try Library(backend)
        try Self.mountTmpfs(at: library.path("usb"))
        var mounted = true
        defer { if mounted { umount(library.path("usb")) } }
        try library.write("usb/x.png", Library.fixture("rgb.png"))
        try library.write("usb/y.jpg", Library.fixture("baseline.jpg"))
        try library.write("usb/sub/z.jpg", Library.fixture("grayscale.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try #require(umount(library.path("usb")) == 0)
        mounted = false
        try library.write("usb/x.png", Library.fixture("rgb.png"))
        let summary = try library.scan()
        #expect(summary.removed == 0, "\(summary)")
        #expect(summary.problems == ["\(library.path("usb")): 2 known files on a disk that is not mounted now (an unmounted disk?); kept, not removed"])
        #expect(try library.items()[library.path("usb/sub/z.jpg")]?.id == before[library.path("usb/sub/z.jpg")]?.id)
    }

    /// Two disks, one mounted in a folder of the other, both unmounted; the outer one mounted
    /// again with the inner one's old number (the catalog is made to hold another number for the
    /// outer one's files, and the outer one's number now for the inner one's). The outer disk's
    /// files, found at their paths as the same files, say that the number is its own now: the
    /// inner disk's files, under its folder, are kept.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aDiskMountedAgainWithTheNumberOfADiskInsideItKeepsThatDisksFiles(_ backend: Backend) throws {
        let library = try Library(backend)
        var mounted: [String] = []
        defer { for name in mounted.reversed() { umount(library.path(name)) } }
        try Self.mountTmpfs(at: library.path("outer"))
        mounted = ["outer"]
        try library.write("outer/o.png", Library.fixture("rgb.png"))
        try Self.mountTmpfs(at: library.path("outer/inner"))
        mounted = ["outer", "outer/inner"]
        try library.write("outer/inner/a.jpg", Library.fixture("baseline.jpg"))
        try library.write("outer/inner/b.jpg", Library.fixture("grayscale.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try #require(umount(library.path("outer/inner")) == 0)
        mounted = ["outer"]
        try Self.set("device", of: ["outer/o.png"], to: 999_999, in: library)
        try Self.set("device", of: ["outer/inner/a.jpg", "outer/inner/b.jpg"], to: try Self.device(of: library.path("outer")), in: library)
        let summary = try library.scan()
        #expect(summary.removed == 0, "\(summary)")
        #expect(summary.problems == ["\(library.path("outer/inner")): 2 known files on a disk that is not mounted now (an unmounted disk?); kept, not removed"])
        #expect(try library.items()[library.path("outer/inner/a.jpg")]?.id == before[library.path("outer/inner/a.jpg")]?.id)
    }

    /// Files on another disk than their folder (links followed to files on a tmpfs): one deleted
    /// goes, as a file does from a folder on its own disk.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aLinkFollowedToAFileOnAnotherDiskGoesWhenDeleted(_ backend: Backend) throws {
        let library = try Library(backend)
        let disk = library.root.deletingLastPathComponent().appendingPathComponent("disk").path
        try Self.mountTmpfs(at: disk)
        defer { umount(disk) }
        for (name, fixture) in [("one.jpg", "baseline.jpg"), ("two.png", "rgb.png")] {
            try Library.fixture(fixture).write(to: URL(fileURLWithPath: disk + "/" + name))
            try FileManager.default.createSymbolicLink(atPath: library.path(name), withDestinationPath: disk + "/" + name)
        }
        let options = ScanOptions(followSymlinks: true)
        #expect(try library.scan(options: options).added == 2)
        try FileManager.default.removeItem(atPath: library.path("two.png"))
        let summary = try library.scan(options: options)
        #expect(summary.removed == 1, "\(summary)")
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        #expect(Set(try library.items().keys) == [library.path("one.jpg")])
    }

    /// A disk unmounted and mounted again in another folder, with its number (a USB disk's number
    /// is its drive's): its files move there with their ids, and a file deleted from it meanwhile
    /// goes, in a folder of its own too. (The disk is bound to the new folder before it is
    /// unmounted from the old one: a tmpfs keeps nothing once unmounted.)
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aDiskMountedAgainInAnotherFolderMovesItsFiles(_ backend: Backend) throws {
        let library = try Library(backend)
        var mounted: [String] = []
        defer { for name in mounted { umount(library.path(name)) } }
        try FileManager.default.createDirectory(atPath: library.path("usb2"), withIntermediateDirectories: true)
        try Self.mountTmpfs(at: library.path("usb"))
        mounted = ["usb"]
        try library.write("usb/b.png", Library.fixture("rgb.png"))
        try library.write("usb/trip/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("usb/trip/d.jpg", Library.fixture("progressive.jpg"))
        try library.write("usb/2023/e.jpg", Library.fixture("baseline.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try #require(mount(library.path("usb"), library.path("usb2"), nil, UInt(MS_BIND), nil) == 0)
        mounted = ["usb", "usb2"]
        try #require(umount(library.path("usb")) == 0)
        mounted = ["usb2"]
        try FileManager.default.removeItem(atPath: library.path("usb2/trip/d.jpg"))
        try FileManager.default.removeItem(atPath: library.path("usb2/2023"))
        let summary = try library.scan()
        #expect((summary.moved, summary.removed, summary.added) == (2, 2, 0), "\(summary)")
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        let after = try library.items()
        #expect(Set(after.keys) == [library.path("usb2/b.png"), library.path("usb2/trip/c.jpg")])
        #expect(after[library.path("usb2/b.png")]?.id == before[library.path("usb/b.png")]?.id)
        #expect(after[library.path("usb2/trip/c.jpg")]?.id == before[library.path("usb/trip/c.jpg")]?.id)
    }

    /// A disk mounted again under another number (the catalog is made to hold another number for
    /// its files, as if it had had it): its files are found at their paths, and those deleted
    /// meanwhile go, in folders where none is found too.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func aDiskMountedAgainUnderAnotherNumberLosesItsDeletedFiles(_ backend: Backend) throws {
        let library = try Library(backend)
        try Self.mountTmpfs(at: library.path("usb"))
        defer { umount(library.path("usb")) }
        try library.write("usb/b.png", Library.fixture("rgb.png"))
        try library.write("usb/trip/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("usb/2023/e.jpg", Library.fixture("baseline.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try Self.set("device", of: ["usb/b.png", "usb/trip/c.jpg", "usb/2023/e.jpg"], to: 999_999, in: library)
        try FileManager.default.removeItem(atPath: library.path("usb/2023"))
        let summary = try library.scan()
        #expect((summary.removed, summary.added) == (1, 0), "\(summary)")
        #expect(summary.problems.isEmpty, "\(summary.problems)")
        let after = try library.items()
        #expect(Set(after.keys) == [library.path("usb/b.png"), library.path("usb/trip/c.jpg")])
        #expect(after[library.path("usb/trip/c.jpg")]?.id == before[library.path("usb/trip/c.jpg")]?.id)
    }

    /// `--one-file-system`: a disk mounted in a folder under the root is not entered. Its files are
    /// not added and the folder is named in a warning; what the catalog holds under it (from a
    /// scan without the option) is kept, a file deleted from it too. A root on that disk is
    /// scanned: the option keeps a walk on its own root's disk.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"), arguments: Backend.allCases)
    func oneFileSystemEntersNoDiskMountedUnderTheRoot_andKeepsWhatItHeld(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("2024/b.png", Library.fixture("rgb.png"))
        try Self.mountTmpfs(at: library.path("2024/usb"))
        defer { umount(library.path("2024/usb")) }
        try library.write("2024/usb/c.jpg", Library.fixture("grayscale.jpg"))
        try library.write("2024/usb/trip/d.jpg", Library.fixture("progressive.jpg"))
        var options = ScanOptions()
        options.oneFileSystem = true
        let first = try library.scan(options: options)
        #expect((first.added, first.files) == (2, 2), "\(first)")
        #expect(first.problems == ["\(library.path("2024/usb")): on another file system (--one-file-system); skipped, nothing under it removed"])
        #expect(Set(try library.items().keys) == [library.path("a.jpg"), library.path("2024/b.png")])
        // Without the option the disk's files come in; with it again they are kept, a deleted one too.
        #expect(try library.scan().added == 2)
        try FileManager.default.removeItem(atPath: library.path("2024/usb/c.jpg"))
        let again = try library.scan(options: options)
        #expect((again.added, again.removed, again.unchanged) == (0, 0, 2), "\(again)")
        #expect(try library.items().count == 4)
        // A root on the disk itself is scanned, and only then does the deleted file go.
        let onTheDisk = try library.scan([library.path("2024/usb")], options: options)
        #expect((onTheDisk.removed, onTheDisk.unchanged) == (1, 1), "\(onTheDisk)")
        #expect(onTheDisk.problems.isEmpty, "\(onTheDisk.problems)")
        // Given with the root above it, it is a root of its own: that walk does not enter it.
        #expect(Scanner.outermost([library.root.path, library.path("2024/usb")], options: options).walked.count == 2)
        #expect(Scanner.outermost([library.root.path, library.path("2024/usb")]).walked == [library.root.path])
        let both = try library.scan([library.root.path, library.path("2024/usb")], options: options)
        #expect((both.added, both.removed, both.unchanged) == (0, 0, 3), "\(both)")
        #expect(both.problems.isEmpty, "\(both.problems)")
        try FileManager.default.removeItem(atPath: library.path("2024/usb/trip/d.jpg"))
        let deleted = try library.scan([library.root.path, library.path("2024/usb")], options: options)
        #expect((deleted.removed, deleted.unchanged) == (1, 2), "a file deleted from the inner root goes: \(deleted)")
    }

    /// `--watch --one-file-system`: the disk mounted under the root is not watched either; a file
    /// written there is not indexed while one written beside it is.
    @Test(.enabled(if: canMount, "mounting a tmpfs takes root"))
    func oneFileSystemWatchesNoFolderOfADiskMountedUnderTheRoot() throws {
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try Self.mountTmpfs(at: library.path("usb"))
        defer { umount(library.path("usb")) }
        try library.write("usb/trip/b.jpg", Library.fixture("grayscale.jpg"))
        var options = ScanOptions()
        options.oneFileSystem = true
        let catalog = try library.catalog()
        let stop = StopFlag()
        let events = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let (root, watchOptions) = (library.root.path, options)
        Thread {
            defer { done.signal() }
            try? catalog.watch([root], options: watchOptions, stop: stop) { event in
                switch event {
                case .watching(let summary, let folders): events.withLock { $0.append("watching \(folders), added \(summary.added)") }
                case .rescanned(let summary, _): events.withLock { $0.append("rescanned, added \(summary.added)") }
                default: break
                }
            }
        }.start()
        defer {
            stop.stop()
            _ = done.wait(timeout: .now() + 30)
        }
        try waitFor { events.withLock { !$0.isEmpty } }
        #expect(events.withLock { $0 } == ["watching 1, added 1"], "the root only: not usb, nor usb/trip")
        try library.write("usb/trip/c.jpg", Library.fixture("progressive.jpg"))
        try library.write("d.png", Library.fixture("rgb.png"))
        try waitFor { try library.items()[library.path("d.png")] != nil }
        #expect(Set(try library.items().keys) == [library.path("a.jpg"), library.path("d.png")])
    }
}
