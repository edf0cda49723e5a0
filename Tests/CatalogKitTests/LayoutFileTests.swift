import CatalogKit
import CatalogModel
@testable import CatalogStore
import Foundation
import Synchronization
import GRDB
import Testing

/// Stored layouts live in `<catalog>.layouts` (Migrations/0012, Migrations/layouts/): a cache in
/// 64 KiB pages under a rollback journal. Lost, foreign or half-written, it never gives a wrong
/// page: the layouts are computed again.
@Suite struct LayoutFileTests {
    let pager = PagerTests()
    let configuration = LayoutConfiguration(width: 375)

    func layoutFile(_ library: Library) throws -> DatabaseQueue { try DatabaseQueue(path: library.layoutFilePath) }

    @Test func layoutsLiveInTheirOwnFile_inLargePages_withARollbackJournal() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3000))
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .computed)
        #expect(try pager.expectPage(catalog, configuration, offset: 5000).source == .stored)
        let file = try layoutFile(library)
        let (pageSize, journal, layouts, segments, migrations) = try file.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_size"), try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM layouts"), try Int.fetchOne(db, sql: "SELECT count(*) FROM layout_segments") ?? 0,
             try String.fetchAll(db, sql: "SELECT identifier FROM migrations"))
        }
        #expect(pageSize == 65_536 && journal == "delete")
        #expect(layouts == 1 && segments > 0)
        #expect(migrations == ["0001_layout_file", "0002_layouts_written_in_pieces"])
        let inCatalog = try DatabaseQueue(path: library.catalogPath).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'layout%'")
        }
        #expect(inCatalog.isEmpty, "the catalog itself keeps no layouts")
        func size(_ path: String) -> Int64 { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0 }
        #expect(size(library.layoutFilePath) > 0)
        let files = ["", "-wal", "-shm", ".layouts"].map { size(library.catalogPath + $0) }.reduce(0, +)
        #expect(try catalog.stats().bytesOnDisk == files, "the layout file counts in the catalog's size on disk")
    }

    /// Deleted while no process has the catalog open: made again, empty, and the layout is
    /// computed and stored again.
    @Test func aDeletedLayoutFileIsMadeAgain() throws {
        let library = try Library()
        let before: Page
        do {
            let catalog = try library.catalog()
            _ = try catalog.importItems(PagerTests.importRows(1000))
            _ = try pager.expectPage(catalog, configuration, offset: 0)
            before = try pager.expectPage(catalog, configuration, offset: 3000)
            #expect(before.source == .stored)
        }
        try FileManager.default.removeItem(atPath: library.layoutFilePath)
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        let again = try pager.expectPage(catalog, configuration, offset: 3000)
        #expect(again.source == .computed && again.items == before.items)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .stored)
    }

    /// A catalog replaced by another one (a copy moved over it) while its layout file stays:
    /// the file's layouts were made for other items, at generations the new catalog also
    /// has. They are dropped when the catalog is opened, never served.
    @Test func aLayoutFileLeftBesideAnotherCatalogIsEmptied() throws {
        let library = try Library()
        let other = try Library()
        do {
            let catalog = try library.catalog()
            _ = try catalog.importItems(PagerTests.importRows(800, seed: 1))
            _ = try pager.expectPage(catalog, configuration, offset: 0)
            let replacement = try other.catalog()
            _ = try replacement.importItems(PagerTests.importRows(800, seed: 7))
            #expect(try catalog.generation() == replacement.generation(), "the same generation: only the owner tells them apart")
        }
        // Both closed: each file holds all of its catalog (the last connection checkpoints).
        try FileManager.default.removeItem(atPath: library.catalogPath)
        try FileManager.default.copyItem(atPath: other.catalogPath, toPath: library.catalogPath)
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        let page = try pager.expectPage(catalog, configuration, offset: 0) // against the new catalog's items
        #expect(page.source == .computed)
    }

    /// A restored backup (or a catalog whose last commits were lost with its WAL) is at an
    /// older generation than layouts the file still holds; the generations after it will be
    /// given to other items. Those layouts are dropped when the catalog is opened.
    @Test func layoutsOfGenerationsTheCatalogHasNotReachedAreDropped() throws {
        let library = try Library()
        let backup = library.catalogPath + ".backup"
        do {
            _ = try library.catalog().importItems(PagerTests.importRows(500, seed: 1))
        }
        try FileManager.default.copyItem(atPath: library.catalogPath, toPath: backup) // closed: all of it is in the file
        do {
            let catalog = try library.catalog()
            _ = try catalog.importItems(PagerTests.importRows(300, from: 500, seed: 2))
            _ = try pager.expectPage(catalog, configuration, offset: 0)
            #expect(try catalog.layouts().map(\.generation) == [2])
        }
        try FileManager.default.removeItem(atPath: library.catalogPath)
        try FileManager.default.copyItem(atPath: backup, toPath: library.catalogPath)
        let catalog = try library.catalog()
        #expect(try catalog.generation() == 1)
        #expect(try catalog.layouts().isEmpty, "the layout of generation 2, from after the backup")
        _ = try catalog.importItems(PagerTests.importRows(300, from: 500, seed: 9)) // generation 2 again, other sizes and dates
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .computed)
    }

    /// The catalog's writer never touches the layout file: a snapshot that has read a stored
    /// layout (and holds the file's shared lock while it computes) does not hold up an import.
    @Test func aReaderOfTheLayoutFileNeverHoldsUpTheCatalogsWriter() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(1000))
        _ = try pager.expectPage(catalog, configuration, offset: 0)
        let key = configuration.key
        let (held, committed) = try catalog.store.withSnapshot { snapshot throws -> (Bool, Bool) in
            let held = try snapshot.layout(configuration: key) != nil
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                // Older items: the stored layout can be extended, so nothing is pruned either.
                _ = try? catalog.importItems(PagerTests.importRows(100, from: 1000, year: 2010, seed: 3))
                done.signal()
            }
            return (held, done.wait(timeout: .now() + 8) == .success)
        }
        #expect(held, "the snapshot read the stored layout")
        #expect(committed, "the import committed while a reader held the layout file")
        #expect(try catalog.generation() == 2)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .extended)
    }

    /// A write of the layout file that changes nothing (a stale save, dropping a configuration
    /// that is not stored) is rolled back, not committed: a commit would take the file's
    /// exclusive lock even then, and wait for the reader that holds the file (then fail, busy).
    @Test func aWriteThatChangesNothingDoesNotWaitForReaders() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(300))
        _ = try catalog.precompute(configuration)
        var absent = configuration
        absent.columns = 5
        try layoutFile(library).inTransaction(.deferred) { reader in
            #expect(try Int.fetchOne(reader, sql: "SELECT count(*) FROM layouts") == 1) // holds the file's shared lock
            #expect(try catalog.dropLayout(absent) == false)
            let stale = try catalog.store.saveLayout(configuration: absent.key, order: absent.order, generation: 0,
                                                     windows: LayoutWindows(count: 0, summary: .init(itemCount: 0, contentHeight: 0, header: [],
                                                                                                     computeSeconds: 0)) { _ in fatalError("no windows") },
                                                     replacing: nil, keeping: 0)
            #expect(stale == .catalogMovedOn, "a layout of a generation that has passed is not stored")
            return .commit
        }
        #expect(try catalog.layouts().map(\.configuration) == [configuration.key])
    }

    /// A layout file SQLite cannot read (damaged, or some other file) is a lost cache: it is
    /// made again (one process at a time, each checking again first), and the catalog opens.
    @Test func aDamagedLayoutFileIsMadeAgain() throws {
        let library = try Library()
        do {
            let catalog = try library.catalog()
            _ = try catalog.importItems(PagerTests.importRows(500))
            _ = try pager.expectPage(catalog, configuration, offset: 0)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.layoutFilePath))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 70_000))
        try handle.close()
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .computed)
        #expect(try pager.expectPage(catalog, configuration, offset: 100).source == .stored)
    }

    func userVersion(_ library: Library) throws -> Int32 {
        try layoutFile(library).read { try Int32.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
    }

    func setUserVersion(_ library: Library, _ value: Int32) throws {
        try layoutFile(library).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = \(value)") }
    }

    func stamp(_ library: Library) throws -> Int32 {
        let folder = (library.catalogPath as NSString).deletingLastPathComponent
        try #require(UnsyncedWrites.staysAttached(folder: folder), "a temporary folder on a local disk file system, on Linux")
        return try #require(UnsyncedWrites.bootMark())
    }

    /// The layout file held open, as another process holds it: whether that file is still the
    /// one at the path (a removed file's number could be given to the next one made).
    struct Held {
        let handle: FileHandle
        let path: String

        init(_ library: Library) throws {
            path = library.layoutFilePath
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        }

        var isStillTheFile: Bool {
            var held = stat()
            var named = stat()
            return fstat(handle.fileDescriptor, &held) == 0 && held.st_nlink > 0 && stat(path, &named) == 0 && named.st_ino == held.st_ino
        }
    }

    func pages(_ library: Library) throws -> (count: Int, free: Int) {
        try layoutFile(library).read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
        }
    }

    /// The file's commits do not wait for the disk, under a stamp of the boot they happen in.
    /// A file stamped otherwise (the machine went down since, and its last writes may not have
    /// reached the disk) is made empty in place when the catalog opens: the same file, which
    /// every process has open, not a new one; one stamped in this boot, or never (written by
    /// builds whose commits all waited), keeps its layouts.
    @Test func unsyncedWritesCarryTheStampOfThisBoot_andAFileStampedOtherwiseIsEmptiedInPlace() throws {
        let library = try libraryWithALayout(rows: 30_000)
        let stamp = try stamp(library)
        let before = try pager.expectPage(library.catalog(), configuration, offset: 200_000)
        #expect(before.source == .stored)
        #expect(try userVersion(library) == stamp)
        do {
            let store = try SQLiteStore.open(at: library.catalogPath)
            #expect(try store.layoutQueue.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 0, "OFF")
            #expect(try store.layoutQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM layouts") } == 1, "this boot's: kept")
        }

        try setUserVersion(library, 0) // as a build whose commits waited for the disk left it
        do {
            let catalog = try library.catalog()
            #expect(try catalog.layouts().map(\.configuration) == [configuration.key], "never stamped: kept")
            #expect(try userVersion(library) == stamp)
        }

        try setUserVersion(library, stamp &+ 1) // written in another boot
        let full = try pages(library)
        let held = try Held(library)
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        #expect(held.isStillTheFile, "in place")
        #expect(try userVersion(library) == stamp)
        let empty = try pages(library)
        #expect(full.count > 8 && empty.count < full.count && empty.free == 0, "made empty, not only emptied: \(full), then \(empty)")
        let again = try pager.expectPage(catalog, configuration, offset: 200_000)
        #expect(again.source == .computed && again.items == before.items)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .stored)
    }

    /// Writes the bytes 0xA5 over every page of the layout file from `page` on.
    func tear(_ library: Library, from page: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.layoutFilePath))
        let size = Int(try handle.seekToEnd())
        #expect(size > (page + 2) * 65_536)
        try handle.seek(toOffset: UInt64(page * 65_536))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: size - page * 65_536))
        try handle.close()
    }

    /// A library whose catalog holds `rows` imported items and one stored layout, closed.
    func libraryWithALayout(rows: Int) throws -> Library {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(rows))
        _ = try pager.expectPage(catalog, configuration, offset: 0)
        return library
    }

    /// Every page but the first (the schema, the stamp) torn: left so by a crash in an earlier
    /// boot (the stamp says so, and the file is made empty before anything reads it), or under
    /// this boot's own stamp (a disk error, say: opening the catalog reads the torn pages). Either
    /// way the file is made empty in place, and the catalog opens.
    @Test(arguments: [true, false])
    func aTornFileIsMadeEmptyInPlace(stampedInAnEarlierBoot: Bool) throws {
        let library = try libraryWithALayout(rows: 3000)
        let stamp = try stamp(library)
        if stampedInAnEarlierBoot { try setUserVersion(library, stamp &+ 1) }
        try tear(library, from: 1)
        let held = try Held(library)
        let catalog = try library.catalog()
        #expect(try catalog.layouts().isEmpty)
        #expect(held.isStillTheFile, "in place")
        #expect(try userVersion(library) == stamp)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .computed)
        #expect(try pager.expectPage(catalog, configuration, offset: 100).source == .stored)
    }

    /// A process whose own commits wait for the disk (its view of the folder gets no stamp)
    /// still checks the mark against this boot: a file another process wrote unsynced in an
    /// earlier boot is made empty, one of this boot is kept, and without a boot id any mark but
    /// 0 counts as an earlier boot's.
    @Test func aProcessThatWaitsForTheDiskStillEmptiesAFileOfAnEarlierBoot() throws {
        let library = try libraryWithALayout(rows: 500)
        let boot = try #require(UnsyncedWrites.bootMark())
        func claim(boot: Int32?) throws -> (layouts: Int, mark: Int32, synchronous: Int) {
            let queue = try layoutFile(library)
            try LayoutFile.claim(queue, boot: boot, unsynced: false, wait: LayoutFile.Wait())
            return try queue.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM layouts") ?? -1, try LayoutFile.mark(db), try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
            }
        }
        var claimed = try claim(boot: boot) // marked in this boot
        #expect(claimed.layouts == 1 && claimed.mark == boot && claimed.synchronous != 0)
        try setUserVersion(library, boot &+ 1)
        claimed = try claim(boot: boot)
        #expect(claimed.layouts == 0 && claimed.mark == boot && claimed.synchronous != 0,
                "marked with this boot all the same: another process may write unsynced under it")
        _ = try pager.expectPage(library.catalog(), configuration, offset: 0) // stored again
        claimed = try claim(boot: nil)
        #expect(claimed.layouts == 0 && claimed.mark == 0, "no boot id: no mark can be told to be this boot's")
    }

    /// A newer build's file is refused before anything is written to it, whatever its stamp.
    @Test func aNewerBuildsFileStampedOtherwiseIsRefusedUntouched() throws {
        let library = try libraryWithALayout(rows: 500)
        let stamp = try stamp(library)
        try layoutFile(library).write { db in try db.execute(sql: "INSERT INTO migrations (identifier) VALUES ('9999_from_the_future')") }
        try setUserVersion(library, stamp &+ 1)
        #expect(throws: StoreError.self) { _ = try library.catalog() }
        #expect(try userVersion(library) == stamp &+ 1)
        #expect(try layoutFile(library).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM layouts") } == 1)
    }

    /// The stamp: this boot, for a local disk file system on a disk that stays while the
    /// machine runs; none where the disk can go away (USB, SD cards, hot-pluggable PCI, network
    /// shares) or cannot be traced (btrfs, loop devices).
    @Test func theStampNamesTheBoot_onDisksThatStayOnly() {
        let mountInfo = #"""
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            40 27 254:0 /srv/photos /mnt/my\040photos rw,relatime - ext4 /dev/vda rw
            41 27 8:17 / /media/usb rw,relatime - vfat /dev/sdb1 rw
            42 27 0:50 / /mnt/nas rw,relatime - cifs //nas/share rw
            43 27 0:51 / /mnt/nas rw,relatime - nfs4 server:/ rw
            44 27 0:52 / /home rw,relatime - btrfs /dev/nvme0n1p2 rw
            """#
        #expect(UnsyncedWrites.mount(of: "/etc/x", in: mountInfo)! == ("254:0", "ext4"))
        #expect(UnsyncedWrites.mount(of: "/mnt/my photos/2024", in: mountInfo)! == ("254:0", "ext4"), "the longest mount point, unescaped")
        #expect(UnsyncedWrites.mount(of: "/mnt/my photosX", in: mountInfo)! == ("254:0", "ext4"), "a prefix of a name is not a folder")
        #expect(UnsyncedWrites.mount(of: "/mnt/nas/a", in: mountInfo)! == ("0:51", "nfs4"), "the mount on top")

        let mark = UnsyncedWrites.bootMark("b1\n")
        #expect(mark != nil && mark != 0)
        #expect(mark == UnsyncedWrites.bootMark("b1"))
        #expect(mark != UnsyncedWrites.bootMark("b2"), "another boot")
        #expect(UnsyncedWrites.bootMark(" ") == nil, "no boot id")
        #expect(["ext4", "xfs"].allSatisfy(UnsyncedWrites.localFileSystems.contains))
        #expect(!["vfat", "nfs4", "cifs", "btrfs", "fuseblk"].contains(where: UnsyncedWrites.localFileSystems.contains),
                "a stick, network shares, a file system of several devices, FUSE")

        let sata = "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
        let usb = "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb"
        let thunderbolt = "/sys/devices/pci0000:00/0000:00:1d.0/0000:05:00.0/nvme/nvme1/nvme1n1"
        let files = [sata + "/removable": "0\n", thunderbolt + "/removable": "0\n", "/sys/devices/pci0000:00/0000:00:1d.0/0000:05:00.0/removable": "removable\n",
                     "/sys/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdc/removable": "1\n"]
        let links = ["/sys/class/block/sda2": sata + "/sda2", "/sys/class/block/sdb1": usb + "/sdb1"]
        let folders = ["/sys/devices/virtual/block/dm-0/slaves": ["sda2"], "/sys/devices/virtual/block/dm-1/slaves": ["sda2", "sdb1"]]
        let sysfs = UnsyncedWrites.Sysfs(contents: { files[$0] }, entries: { folders[$0] ?? [] }, resolve: { links[$0] ?? $0 })
        func stays(_ device: String) -> Bool { UnsyncedWrites.staysAttached(device, sysfs: sysfs) }
        #expect(stays("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"))
        #expect(stays(sata + "/sda2"), "a partition of a fixed disk")
        #expect(!stays(usb + "/sdb1"), "USB")
        #expect(!stays("/sys/devices/platform/soc/mmc0/mmc0:0001/block/mmcblk0"), "an SD card")
        #expect(!stays("/sys/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdc/sdc1"), "marked removable")
        #expect(!stays(thunderbolt), "behind a hot-pluggable PCI port")
        #expect(stays("/sys/devices/virtual/block/dm-0"), "device mapper over a fixed disk")
        #expect(!stays("/sys/devices/virtual/block/dm-1"), "device mapper over a USB drive too")
        #expect(!stays("/sys/devices/virtual/block/loop0"), "made of nothing traceable")
        #expect(!stays("/sys/devices/platform/host3/session1/target3:0:0/3:0:0:0/block/sdc"), "iSCSI")
    }

    /// Two stores that open a damaged layout file at once replace it one at a time, each
    /// opening it again first: both end on the same new file, so a layout one stores is the
    /// other's too. Were each to replace it unchecked, one would write a removed file. Were one
    /// to replace it while the other still had the removed file open, the other would take the
    /// new file's journal for its own and delete it ("disk I/O error": 9 runs of 400 rounds
    /// under load failed before the shared lock, none after). Many rounds: the race is narrow.
    @Test func storesOpeningADamagedFileAtOnceEndOnTheSameFile() throws {
        let library = try libraryWithALayout(rows: 500)
        for round in 0..<60 {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.layoutFilePath))
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 70_000))
            try handle.close()
            let opened = Mutex<[Int: Result<Catalog, any Error>]>([:])
            let path = library.catalogPath
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = Result { try Catalog.open(at: path) }
                opened.withLock { $0[index] = result }
            }
            let catalogs = try opened.withLock { try [$0[0]!.get(), $0[1]!.get()] }
            let configuration = LayoutConfiguration(width: 300 + Double(round))
            #expect(try pager.expectPage(catalogs[round % 2], configuration, offset: 0).source == .computed)
            #expect(try pager.expectPage(catalogs[1 - round % 2], configuration, offset: 0).source == .stored, "round \(round)")
        }
    }

    /// A layout file that a newer build has migrated further is refused, as a newer catalog is,
    /// naming the file and the migrations this build does not know.
    @Test func aLayoutFileFromANewerBuildIsRefused() throws {
        let library = try Library()
        _ = try library.catalog()
        try layoutFile(library).write { db in try db.execute(sql: "INSERT INTO migrations (identifier) VALUES ('9999_from_the_future')") }
        #expect {
            _ = try library.catalog()
        } throws: { error in
            guard case StoreError.newerVersion(let path, let unknown) = error else { return false }
            return path == library.layoutFilePath && unknown == ["9999_from_the_future"]
        }
        // Beside a catalog of an older build, refused before the catalog is migrated: the
        // refusal's "it was not modified" holds for both files.
        let last = CatalogMigrations.identifiers.last!
        try DatabaseQueue(path: library.catalogPath).write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [last])
        }
        #expect(throws: StoreError.self) { _ = try library.catalog() }
        let applied = try DatabaseQueue(path: library.catalogPath).read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(!applied.contains(last) && applied.count == CatalogMigrations.identifiers.count - 1, "the catalog was not migrated")
    }
}
