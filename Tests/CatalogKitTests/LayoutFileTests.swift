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

    /// A writer that dies mid-commit leaves a hot journal. The pool's readers are read-only and
    /// cannot roll it back: the store has its writer do it, and the page is served as stored
    /// before the dead transaction.
    /// A catalog with a layout stored in many segments, then a writer of its layout file that
    /// died mid-transaction, leaving the journal of its deletion of every layout.
    func layoutAndADeadWritersJournal() throws -> (library: Library, catalog: Catalog, small: LayoutConfiguration, before: Page) {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3000))
        var small = configuration
        small.windowHeight = 64 // many segments: the deletion below spills pages to the file
        _ = try pager.expectPage(catalog, small, offset: 0)
        let before = try pager.expectPage(catalog, small, offset: 9000)
        #expect(before.source == .stored)
        let died = try Self.python("""
            import os, sqlite3
            db = sqlite3.connect(\(String(reflecting: library.layoutFilePath)), isolation_level=None)
            db.execute("PRAGMA cache_size = 1")
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM layouts")
            os._exit(0)
            """)
        #expect(died == 0)
        return (library, catalog, small, before)
    }

    @Test func aJournalLeftByAWriterThatDiedIsRolledBack_andTheStoredLayoutServes() throws {
        let (library, catalog, small, before) = try layoutAndADeadWritersJournal()
        let journal = library.layoutFilePath + "-journal"
        #expect(FileManager.default.fileExists(atPath: journal), "the dead writer's journal")
        let after = try pager.expectPage(catalog, small, offset: 9000)
        #expect(after.source == .stored && after.items == before.items)
        #expect(!FileManager.default.fileExists(atPath: journal), "rolled back and removed")
        #expect(try catalog.layouts().count == 1)
    }

    /// A configuration never laid out, asked for while a dead writer's journal is in the layout
    /// file: laid out and stored (while computed, or after should its snapshot meet the journal
    /// first), the journal rolled back, and both layouts then read as stored.
    @Test func aNewLayoutAskedForWhileADeadWritersJournalIsLeftIsStored_andTheJournalRolledBack() throws {
        let (library, catalog, small, before) = try layoutAndADeadWritersJournal()
        var other = small
        other.columns = 3
        #expect(other.storesWhileComputing)
        #expect(try pager.expectPage(catalog, other, offset: 4000).source == .computed)
        #expect(!FileManager.default.fileExists(atPath: library.layoutFilePath + "-journal"), "rolled back and removed")
        #expect(try catalog.layouts().count == 2, "the dead writer's deletion undone, the new layout stored")
        #expect(try pager.expectPage(catalog, other, offset: 4000).source == .stored)
        let after = try pager.expectPage(catalog, small, offset: 9000)
        #expect(after.source == .stored && after.items == before.items)
    }

    /// A store whose windows come while its layout is computed holds the file's queue until the
    /// computation ends; a read that meets a dead writer's journal then cannot have that queue
    /// roll it back (the read may be the computation: it would wait for ever). It throws
    /// instead, and the computation stores its layout once computed; with no such store under
    /// way, the same read rolls the journal back.
    @Test func aReadThatMeetsAJournalWhileAStreamedStoreHoldsTheFileThrows_andRollsBackOnceItEnds() throws {
        let (library, catalog, small, _) = try layoutAndADeadWritersJournal()
        let store = try #require(catalog.store as? SQLiteStore)
        store.streamedStores.wrappingAdd(1, ordering: .relaxed) // as `saveLayout` does for a stream
        #expect(throws: StoreError.layoutsBusy(path: library.catalogPath)) {
            try catalog.store.withSnapshot { try $0.layout(configuration: small.key) }
        }
        #expect(FileManager.default.fileExists(atPath: library.layoutFilePath + "-journal"), "left for the store's queue")
        store.streamedStores.wrappingSubtract(1, ordering: .relaxed)
        #expect(try pager.expectPage(catalog, small, offset: 9000).source == .stored)
        #expect(!FileManager.default.fileExists(atPath: library.layoutFilePath + "-journal"), "rolled back")
    }

    /// Readers that hold the layout file past the wait (10 s) make `catalog layout` fail with
    /// an error that names them, not a scan that is not there; the page is still served, and
    /// the layout is stored once they let go. The layout is larger than the file's page cache:
    /// its store needs the file's exclusive lock at every statement that spills, and the wait
    /// counts once for all of them (SQLite's own timeout would wait again at each one, for as
    /// long as the reader holds the file).
    @Test func aLayoutFileHeldByReadersFailsAStoreWithItsOwnError_andTheNextStoreWorks() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(120_000)) // about 2.6 MB of layout, past the 2 MiB cache
        _ = try catalog.precompute(configuration) // makes the file
        var other = configuration
        other.columns = 3
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["python3", "-c", """
            import os, sqlite3, sys, threading
            db = sqlite3.connect(\(String(reflecting: library.layoutFilePath)), isolation_level=None)
            db.execute("BEGIN")
            db.execute("SELECT count(*) FROM layouts").fetchall()
            bound = threading.Timer(120, lambda: os._exit(0)) # should the store never give up
            bound.daemon = True
            bound.start()
            print("holding", flush=True)
            sys.stdin.read()
            """]
        let (input, output) = (Pipe(), Pipe())
        (reader.standardInput, reader.standardOutput) = (input, output)
        try reader.run()
        defer { if reader.isRunning { reader.terminate() } }
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(said.hasPrefix("holding"), "the reader holds its lock before the store begins")
        let started = ContinuousClock.now
        #expect(throws: StoreError.layoutsBusy(path: library.catalogPath)) { _ = try catalog.precompute(other) }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(9) && waited < .seconds(40), "one wait of 10 s for the whole store, not one per statement: \(waited)")
        #expect(StoreError.layoutsBusy(path: library.catalogPath).description.contains("being read by other processes"))
        let page = try catalog.page(PageRequest(configuration: other, position: .offset(0), height: 812)) // served all the same
        #expect(page.source == .computed && !page.items.isEmpty)
        try input.fileHandleForWriting.close()
        reader.waitUntilExit()
        let (stored, source, _) = try catalog.precompute(other)
        #expect(source == .computed && stored.itemCount == 120_000)
        #expect(try catalog.page(PageRequest(configuration: other, position: .offset(0), height: 812)).items == page.items)
    }

    /// An import turns foreign keys off; a layout it removes takes its segments with it anyway
    /// (a trigger), so a new layout given the same id finds none of the old ones.
    @Test func aRemovedLayoutTakesItsSegments_evenWithForeignKeysOff() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(1000))
        _ = try pager.expectPage(catalog, configuration, offset: 0)
        let file = try layoutFile(library)
        let (segmentsBefore, segmentsLeft) = try file.writeWithoutTransaction { db in
            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM layout_segments") ?? 0
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM layouts")
            return (before, try Int.fetchOne(db, sql: "SELECT count(*) FROM layout_segments") ?? -1)
        }
        #expect(segmentsBefore > 0 && segmentsLeft == 0)
        try file.close()
        #expect(try pager.expectPage(catalog, configuration, offset: 2000).source == .computed)
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .stored)
    }

    /// `catalog layouts --drop` gives the file's pages back to the disk: a delete alone left a
    /// file of gigabytes that only later stores reused. One layout dropped leaves the pages free
    /// for the next stores, as the budget's evictions do.
    @Test func droppingEveryLayoutShrinksTheFile() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(30_000))
        for width in [375.0, 414, 600] { _ = try catalog.precompute(LayoutConfiguration(width: width)) }
        func size() -> Int64 { (try? FileManager.default.attributesOfItem(atPath: library.layoutFilePath)[.size] as? Int64) ?? 0 }
        let full = size()
        #expect(try catalog.dropLayout(LayoutConfiguration(width: 414)))
        #expect(size() == full, "one dropped: its pages stay for the next store")
        #expect(try catalog.dropLayouts() == 2)
        // An empty file is its schema: nine 64 KiB pages.
        #expect(full > 2_500_000 && size() <= 16 * 65_536, "\(full) bytes, then \(size())")
        #expect(try pager.expectPage(catalog, configuration, offset: 0).source == .computed)
        #expect(try pager.expectPage(catalog, configuration, offset: 5000).source == .stored)
    }

    /// An extension keeps the stored segments before its first changed window only if the
    /// layout it extends is still as it was read: one extended in place since (by another
    /// process, at another generation) keeps its id, and keeping its segments would mix two
    /// layouts. Then the whole layout is written.
    @Test(arguments: Backend.allCases)
    func anExtensionKeepsSegmentsOnlyOfTheLayoutAsItWasRead(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let store = catalog.store
        let count = 70 // windows: one full segment of 64, then 6
        func windows(filledWith byte: UInt8) -> LayoutWindows {
            LayoutWindows(count: count, summary: .init(itemCount: count, contentHeight: 1, header: [1], computeSeconds: 0)) { range in
                LayoutWindows.Packed(bytes: [UInt8](repeating: byte, count: range.count * 16), ends: (1...range.count).map { $0 * 16 },
                                     minIndices: Array(range), maxIndices: Array(range))
            }
        }
        /// The last byte of each segment of the stored layout: which save wrote it.
        func segmentFills(_ layout: Int64) throws -> [String] {
            switch backend {
            case .sqlite:
                return try DatabaseQueue(path: library.layoutFilePath).read { db in
                    try String.fetchAll(db, sql: "SELECT hex(substr(bytes, -1)) FROM layout_segments WHERE layout_id = ? ORDER BY first_window",
                                        arguments: [layout])
                }
            case .postgres:
                return try TestPostgres.psql(OrderDataTests.database(library), """
                    SELECT upper(encode(substring(bytes from length(bytes)), 'hex')) FROM layout_segments WHERE layout_id = \(layout) ORDER BY first_window
                    """).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
        }
        func save(_ generation: Int64, fill: UInt8, replacing previous: (id: Int64, generation: Int64)?) throws -> StoredLayout {
            #expect(try store.saveLayout(configuration: "test", order: .date, generation: generation, windows: windows(filledWith: fill),
                                         replacing: previous, keeping: count) == .stored)
            return try #require(try store.layouts().first { $0.configuration == "test" })
        }
        func importOne(_ line: Int) throws -> Int64 {
            try catalog.importItems([ImportRow(line: line, key: "k\(line)", width: 10, height: 10)]).generation
        }
        let first = try save(try importOne(2), fill: 1, replacing: nil)
        #expect(try segmentFills(first.id) == ["01", "01"])

        let extended = try save(try importOne(3), fill: 2, replacing: (first.id, first.generation))
        #expect(extended.id == first.id)
        #expect(try segmentFills(extended.id) == ["01", "02"], "the full first segment kept, the partial one written again")

        // Extending the layout as it was at the first generation, though it has moved on since.
        let stale = try save(try importOne(4), fill: 3, replacing: (first.id, first.generation))
        #expect(try segmentFills(stale.id) == ["03", "03"], "every segment written again")
        #expect(stale.generation == extended.generation + 1)
    }

    /// Two stores extending the same layout at once (two servers, one PostgreSQL): the second,
    /// once the first commits, finds it extended to its generation and stores nothing. It used
    /// to replace the same segments again, its inserts meeting the first's (a duplicate key:
    /// the page answered 500). The first store here is a psql session holding the layout's row.
    @Test func twoStoresExtendingOneLayoutAtOnce_storeItOnce() throws {
        let library = try Library(.postgres)
        let catalog = try library.catalog()
        let store = catalog.store
        let count = 70
        let windows = LayoutWindows(count: count, summary: .init(itemCount: count, contentHeight: 1, header: [1], computeSeconds: 0)) { range in
            LayoutWindows.Packed(bytes: [UInt8](repeating: 2, count: range.count * 16), ends: (1...range.count).map { $0 * 16 },
                                 minIndices: Array(range), maxIndices: Array(range))
        }
        let first = try catalog.importItems([ImportRow(line: 2, key: "a", width: 10, height: 10)]).generation
        #expect(try store.saveLayout(configuration: "test", order: .date, generation: first, windows: windows, replacing: nil, keeping: 0) == .stored)
        let layout = try #require(try store.layouts().first)
        let second = try catalog.importItems([ImportRow(line: 2, key: "b", width: 10, height: 10)]).generation
        let database = OrderDataTests.database(library)
        let (other, input) = try TestPostgres.session(database)
        input.write(Data("""
            BEGIN;
            SELECT generation FROM layouts WHERE id = \(layout.id) FOR UPDATE;
            DELETE FROM layout_segments WHERE layout_id = \(layout.id) AND first_window >= 64;
            INSERT INTO layout_segments (layout_id, first_window, window_count, min_index, max_index, bytes) VALUES (\(layout.id), 64, 6, 64, 69, '\\x09');
            UPDATE layouts SET generation = \(second) WHERE id = \(layout.id);

            """.utf8))
        try waitFor {
            try TestPostgres.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'UPDATE layouts%'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<LayoutSave, StoreError>?
        Thread {
            outcome = Result { () throws(StoreError) in
                try store.saveLayout(configuration: "test", order: .date, generation: second, windows: windows,
                                     replacing: (layout.id, first), keeping: count)
            }
            done.signal()
        }.start()
        try waitFor { // the second store waits for the first's lock
            try TestPostgres.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        input.write(Data("COMMIT;\n".utf8))
        try input.close()
        other.waitUntilExit()
        done.wait()
        #expect(try #require(outcome).get() == .replaced)
        #expect(try TestPostgres.psql(database, "SELECT first_window || ':' || encode(bytes, 'hex') FROM layout_segments WHERE first_window = 64")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "64:09", "the first store's segment, as it committed it")
        #expect(try store.layouts().map(\.generation) == [second])
    }

    /// What a commit of a store leaves for others to see: how many segments the layout being
    /// stored has, whether its row is still marked, what the catalog lists and serves of it.
    struct Seen: Sendable {
        var segments: Int
        var marked: Bool
        var listed: Bool
        var inSnapshot: Bool
        var otherLayoutsSegments: Int
    }

    /// A store goes in pieces, each its own commit, so that readers of the file wait for one
    /// piece at most (a whole 10,000,000-item layout held every page of every other layout for
    /// about a second). Between two pieces the file is free for any reader (one that never waits
    /// reads it here), the layout's row is marked, and neither the catalog's list nor a snapshot
    /// knows of it until its last piece: the pages of the stored layout beside it stay readable.
    @Test func aLayoutIsStoredInPieces_noReaderSeesItBeforeTheLast_andTheFileStaysReadable() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(20_000))
        _ = try catalog.precompute(configuration)
        var other = configuration
        other.columns = 3
        let store = try #require(catalog.store as? SQLiteStore)
        let seen = Mutex<[Seen]>([])
        let path = library.layoutFilePath
        store.layoutPieces.set(bytes: 32 << 10) { [other] in
            do {
                // A reader that does not wait at all: it fails if the writer holds any lock a reader minds.
                var never = Configuration()
                never.readonly = true
                never.busyMode = .immediateError
                let file = try DatabaseQueue(path: path, configuration: never)
                let (segments, marked, others) = try file.read { db in
                    (try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM layout_segments WHERE layout_id = (SELECT id FROM layouts WHERE configuration = ?)
                        """, arguments: [other.key]) ?? -1,
                     try Bool.fetchOne(db, sql: "SELECT writer IS NOT NULL FROM layouts WHERE configuration = ?", arguments: [other.key]) ?? false,
                     try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM layout_segments WHERE layout_id IN (SELECT id FROM layouts WHERE configuration != ?)
                        """, arguments: [other.key]) ?? -1)
                }
                try file.close()
                let listed = try store.layouts().contains { $0.configuration == other.key }
                let inSnapshot = try store.withSnapshot { try $0.layout(configuration: other.key) != nil }
                seen.withLock { $0.append(Seen(segments: segments, marked: marked, listed: listed, inSnapshot: inSnapshot,
                                               otherLayoutsSegments: others)) }
            } catch {
                Issue.record("a reader between two pieces: \(error)")
            }
        }
        let (stored, source, _) = try catalog.precompute(other)
        #expect(source == .computed && stored.itemCount == 20_000)
        let commits = seen.withLock { $0 }
        #expect(commits.count >= 4, "the row, pieces, and the last commit: \(commits.count) commits")
        let during = commits.dropLast()
        #expect(during.allSatisfy { $0.marked && !$0.listed && !$0.inSnapshot }, "no reader takes a layout half stored")
        #expect(zip(during, during.dropFirst()).allSatisfy { $0.segments < $1.segments }, "each piece committed on its own: \(during.map(\.segments))")
        #expect(during.allSatisfy { $0.otherLayoutsSegments == commits[0].otherLayoutsSegments && $0.otherLayoutsSegments > 0 })
        let last = try #require(commits.last)
        // The last commit marks the layout stored (a stream's last piece may have been committed
        // on its own already).
        #expect(!last.marked && last.listed && last.inSnapshot && last.segments >= (during.last?.segments ?? 0))
        store.layoutPieces.set(bytes: 1 << 20)
        #expect(try pager.expectPage(catalog, other, offset: 30_000).source == .stored, "the layout stored in pieces pages as the reference")
    }

    /// A catalog of 10 items and a layout of `windowCount` windows (512 bytes each) to store in
    /// pieces under a few configurations, with what the layout file holds after.
    struct Pieces {
        let library: Library
        let catalog: Catalog
        let store: SQLiteStore
        let file: DatabaseQueue
        let generation: Int64
        let windows: LayoutWindows

        init(windowCount: Int) throws {
            library = try Library()
            catalog = try library.catalog()
            generation = try catalog.importItems(PagerTests.importRows(10)).generation
            store = try #require(catalog.store as? SQLiteStore)
            windows = LayoutWindows(count: windowCount, summary: .init(itemCount: 10, contentHeight: 1, header: [1], computeSeconds: 0)) { range in
                LayoutWindows.Packed(bytes: [UInt8](repeating: 7, count: range.count * 512), ends: (1...range.count).map { $0 * 512 },
                                     minIndices: Array(range), maxIndices: Array(range))
            }
            file = try DatabaseQueue(path: library.layoutFilePath)
        }

        /// Stores the layout as `configuration`.
        func save(_ configuration: String) throws -> LayoutSave {
            try store.saveLayout(configuration: configuration, order: .date, generation: generation, windows: windows, replacing: nil, keeping: 0)
        }

        /// Each row's configuration, segments, and whether it is marked.
        func rows() throws -> [String: (segments: Int, marked: Bool)] {
            try file.read { db in
                var rows: [String: (Int, Bool)] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT configuration, (SELECT count(*) FROM layout_segments WHERE layout_id = layouts.id), writer IS NOT NULL FROM layouts
                    """) { rows[row[0]] = (row[1], row[2]) }
                return rows
            }
        }

        /// Segments of no row.
        func orphans() throws -> Int? {
            try file.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM layout_segments WHERE layout_id NOT IN (SELECT id FROM layouts)") }
        }
    }

    /// Another writer may remove the layout being stored between two of its pieces (a store of
    /// the same configuration begun later, `catalog layouts --drop`): the store gives up at its
    /// next piece, and removes what it wrote. A row left marked by a store that never came back
    /// (a process killed mid-store) goes with its segments once it is `abandonedSeconds` old;
    /// one marked recently is another store under way, and stays.
    @Test func aStoreWhoseLayoutIsRemovedMidwayGivesUp_andRowsOfStoresThatStoppedGo() throws {
        let fixture = try Pieces(windowCount: 64 * 8)
        let (library, catalog, store, file, generation, windows) =
            (fixture.library, fixture.catalog, fixture.store, fixture.file, fixture.generation, fixture.windows)
        let (save, rows, orphans) = (fixture.save, fixture.rows, fixture.orphans)

        let remover = try library.catalog() // another process, as far as the file is concerned
        let commits = Mutex(0)
        store.layoutPieces.set(bytes: 64 << 10) {
            let count = commits.withLock { $0 += 1; return $0 }
            if count == 2 { #expect((try? remover.dropLayouts()) == 1, "the row being written is removed") }
        }
        #expect(try save("dropped") == .dropped)
        #expect(commits.withLock { $0 } == 2, "given up at the piece after the removal")
        #expect(try rows()["dropped"] == nil && orphans() == 0)

        // Stores that stopped: one long ago, one a moment ago (both marked, with segments).
        try file.write { db in
            for (configuration, usedAt) in [("stopped", "2000-01-01T00:00:00Z"), ("under way", nil as String?)] {
                try db.execute(sql: """
                    INSERT INTO layouts (configuration, item_order, generation, item_count, content_height, header, bytes, compute_seconds, writer, last_used_at)
                    VALUES (?, 'date', 0, 0, 0, x'', 0, 0, x'01', coalesce(?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))
                    """, arguments: [configuration, usedAt])
                try db.execute(sql: """
                    INSERT INTO layout_segments (layout_id, first_window, window_count, min_index, max_index, bytes) VALUES (?, 0, 1, 0, 0, x'00')
                    """, arguments: [db.lastInsertedRowID])
            }
        }
        #expect(try catalog.layouts().isEmpty, "rows being written are not listed")
        store.layoutPieces.set(bytes: 64 << 10)
        #expect(try save("kept") == .stored)
        let after = try rows()
        #expect(try after["stopped"] == nil && orphans() == 0, "the stopped store's row and segments are gone")
        #expect(after["under way"]?.marked == true && after["under way"]?.segments == 1)
        #expect(after["kept"]?.marked == false && (after["kept"]?.segments ?? 0) == 8)
        #expect(try catalog.layouts().map(\.configuration) == ["kept"])

        // A store of the same configuration by another process, begun and finished between two
        // pieces: this one gives up (replaced, not dropped), and the other's layout stays.
        let other = try #require(remover.store as? SQLiteStore)
        commits.withLock { $0 = 0 }
        store.layoutPieces.set(bytes: 64 << 10) {
            if commits.withLock({ $0 += 1; return $0 }) == 2 {
                let taller = LayoutWindows(count: 64 * 8, summary: .init(itemCount: 10, contentHeight: 2, header: [1], computeSeconds: 0)) {
                    windows.packed($0)
                }
                #expect((try? other.saveLayout(configuration: "kept", order: .date, generation: generation, windows: taller, replacing: nil,
                                               keeping: 0)) == .stored)
            }
        }
        #expect(try save("kept") == .replaced)
        #expect(try rows()["kept"]?.marked == false && orphans() == 0)
        #expect(try catalog.layouts().map(\.contentHeight) == [2], "the other store's layout")
    }

    /// A reader of the layout file holding it (its shared lock) on a thread of its own until
    /// `release` is signalled; returns once the reader holds it (an issue when it could not open
    /// or hold it), and the semaphore the reader signals when it has let go.
    static func holdReading(_ path: String, until release: DispatchSemaphore,
                            sourceLocation: SourceLocation = #_sourceLocation) -> DispatchSemaphore {
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                let reader = try DatabaseQueue(path: path)
                try reader.inTransaction(.deferred) { db in
                    _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM layouts") // takes the shared lock
                    holding.signal()
                    // A minute at most, so that a store that never waits fails the test, not hangs it.
                    _ = release.wait(timeout: .now() + 60)
                    return .commit
                }
            } catch {
                failure.withLock { $0 = error }
                holding.signal() // wakes the caller when it failed before holding the file
            }
        }
        holding.wait()
        if let error = failure.withLock({ $0 }) {
            Issue.record(error, "the reader could not open or hold the layout file", sourceLocation: sourceLocation)
        }
        return done
    }

    /// A store in pieces counts against its budget the time it waits for readers, not the time
    /// since it began: a store that writes for longer than its budget, and waits for a reader
    /// for less, is stored. One whose waits pass the budget gives up busy, and removes what it
    /// wrote once the reader lets go within the cleanup's own wait; a reader that holds on
    /// longer leaves the row marked (for a later store: `abandonedSeconds`), never listed.
    @Test(.timeLimit(.minutes(2)))
    func aStoreCountsOnlyItsWaitsAgainstItsBudget_andOneThatGivesUpBusyRemovesItsPieces() throws {
        let fixture = try Pieces(windowCount: 64 * 16)
        let (catalog, store, save, orphans) = (fixture.catalog, fixture.store, fixture.save, fixture.orphans)
        /// Each row's configuration and whether it is marked.
        func rows() throws -> [String: Bool] { try fixture.rows().mapValues(\.marked) }
        let path = fixture.library.layoutFilePath
        let commits = Mutex(0)
        let releases = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let readers = Mutex<[DispatchSemaphore]>([])
        @Sendable func holdReading(until release: DispatchSemaphore) { readers.withLock { $0.append(Self.holdReading(path, until: release)) } }
        defer { [releases.0, releases.1, releases.2].forEach { $0.signal() } }

        // Pieces at least 0.1 s apart (eight or more: 0.7 s of writing or more) against a budget
        // of 0.4 s; at the seventh commit (0.6 s after the first) a reader holds the file, and
        // lets go once the store has waited for it once.
        store.layoutWait.setBudgets(store: .milliseconds(400), cleanup: .seconds(30))
        let waits = Mutex(0)
        store.layoutWait.setOnWait { _ in
            waits.withLock { $0 += 1 }
            releases.0.signal()
        }
        store.layoutPieces.set(bytes: 64 << 10) {
            let count = commits.withLock { $0 += 1; return $0 }
            Thread.sleep(forTimeInterval: 0.1) // a slow store, not a wait for a condition
            if count == 6 { holdReading(until: releases.0) }
        }
        #expect(try save("slow") == .stored, "its wait is within the budget; its writing does not count")
        #expect(waits.withLock { $0 } >= 1, "the store waited for the reader")
        #expect(commits.withLock { $0 } >= 8, "\(commits.withLock { $0 }) commits")
        #expect(readers.withLock { $0.count } == 1)
        #expect(try rows() == ["slow": false])

        // A reader that holds the file from the second commit until the store's budget is spent:
        // the store gives up, and its cleanup (30 s to wait) removes what it wrote.
        commits.withLock { $0 = 0 }
        store.layoutWait.setOnWait { again in if !again { releases.1.signal() } }
        store.layoutPieces.set(bytes: 64 << 10) {
            if commits.withLock({ $0 += 1; return $0 }) == 2 { holdReading(until: releases.1) }
        }
        #expect(try save("busy") == .busy)
        #expect(commits.withLock { $0 } == 2, "given up at the third commit")
        #expect(try rows() == ["slow": false] && orphans() == 0, "what it wrote is gone")

        // A reader that holds on until the store has returned: its cleanup (0.1 s) gives up too,
        // and the row stays marked, unlisted.
        store.layoutWait.setBudgets(store: .milliseconds(400), cleanup: .milliseconds(100))
        store.layoutWait.setOnWait(nil)
        commits.withLock { $0 = 0 }
        store.layoutPieces.set(bytes: 64 << 10) {
            if commits.withLock({ $0 += 1; return $0 }) == 2 { holdReading(until: releases.2) }
        }
        #expect(try save("left") == .busy)
        releases.2.signal()
        for reader in readers.withLock({ $0 }) { reader.wait() }
        #expect(try rows() == ["slow": false, "left": true], "left for a store 10 minutes later")
        #expect(try catalog.layouts().map(\.configuration) == ["slow"])
    }

    /// `catalog layout` whose layout another process drops while it is stored says so, not
    /// that the layouts were busy; the layout is computed and stored again by the next one.
    @Test func aLayoutDroppedWhileItIsStoredIsReportedAsDropped() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(20_000))
        let store = try #require(catalog.store as? SQLiteStore)
        let configuration = LayoutConfiguration(width: 375)
        let dropper = try library.catalog() // another process, as far as the file is concerned
        let commits = Mutex(0)
        store.layoutPieces.set(bytes: 64 << 10) {
            if commits.withLock({ $0 += 1; return $0 }) == 1 { #expect((try? dropper.dropLayouts()) == 1) }
        }
        #expect(throws: StoreError.layoutDropped(path: library.catalogPath)) { _ = try catalog.precompute(configuration) }
        #expect(StoreError.layoutDropped(path: library.catalogPath).description.contains("dropped this layout"))
        #expect(try catalog.layouts().isEmpty)
        store.layoutPieces.set(bytes: 64 << 10)
        #expect(try catalog.precompute(configuration).layout.itemCount == 20_000)
    }

    static func python(_ script: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
