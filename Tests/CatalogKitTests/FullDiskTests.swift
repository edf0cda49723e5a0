import CatalogKit
@testable import CatalogStore
import Foundation
import GRDB
import Testing

/// A catalog on a disk with no room left: a page is still made (its layout not stored), a write
/// fails saying the disk is full and what was kept, and once there is room again all works.
@Suite struct FullDiskTests {
    /// A 4 MiB tmpfs in `library`'s folder, unmounted by `body`'s end.
    static func withSmallDisk(_ library: Library, _ body: (String) throws -> Void) throws {
        let disk = library.root.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=4m") == 0)
        defer { umount2(disk, Int32(MNT_DETACH)) }
        try body(disk)
    }

    /// Fills `disk` to its last byte with the file `filler`.
    static func fill(_ disk: String, filler: String) throws {
        #expect(FileManager.default.createFile(atPath: filler, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        for size in [64 * 1024, 4096, 512, 1] {
            var room = true
            while room {
                do { try handle.write(contentsOf: Data(count: size)) } catch { room = false }
            }
        }
        try handle.close()
    }

    @Test(.enabled(if: ScannerTests.canMount, "mounting a tmpfs takes root"))
    func aFullDiskStillGivesPages_andAWriteSaysTheDiskIsFull() throws {
        try Self.withSmallDisk(try Library()) { disk in try Self.stillGivesPages(on: disk) }
    }

    static func stillGivesPages(on disk: String) throws {
        let path = disk + "/catalog.sqlite"
        let catalog = try Catalog.open(at: path)
        _ = try catalog.importItems(PagerTests.importRows(2000))
        let filler = disk + "/filler"
        try Self.fill(disk, filler: filler)

        var configuration = LayoutConfiguration(width: 414)
        configuration.columns = 3
        let page = try catalog.page(PageRequest(configuration: configuration, position: .offset(0), height: 900))
        #expect(page.items.count > 10 && page.source == .computed)
        #expect(try catalog.layouts().isEmpty, "no room to store it")
        let refused = Result { () throws(StoreError) in try catalog.importItems(PagerTests.importRows(4000, from: 2000)) }
        guard case .failure(let error) = refused, case .full(let at, let reason) = error else {
            Issue.record("an import onto a full disk: \(refused)")
            return
        }
        #expect(at == path)
        #expect(reason.hasPrefix("no room on the disk of the catalog, of its file of stored layouts (\(path).layouts), or of the folder "))
        #expect(error.description.hasSuffix("what was committed before is kept. Free some space and try again."))
        #expect(try catalog.items(order: .path).count == 2000, "what was committed before is kept")

        try FileManager.default.removeItem(atPath: filler)
        _ = try catalog.page(PageRequest(configuration: configuration, position: .offset(0), height: 900))
        #expect(try catalog.layouts().count == 1)
        #expect(try catalog.importItems(PagerTests.importRows(100, from: 2000)).added == 100)
    }

    /// A catalog of an older build on a full disk: its upgrade says the disk is full (it said
    /// SQLite's "database or disk is full"), and leaves it as it was, upgraded once there is room.
    @Test(.enabled(if: ScannerTests.canMount, "mounting a tmpfs takes root"))
    func anUpgradeOnAFullDiskSaysTheDiskIsFull() throws {
        try Self.withSmallDisk(try Library()) { disk in try Self.upgrade(on: disk) }
    }

    static func upgrade(on disk: String) throws {
        let path = disk + "/catalog.sqlite"
        // Open throughout, so that the WAL index exists before the disk fills (SQLite cannot make it on a full disk).
        let old = try DatabaseQueue(path: path)
        try old.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try CatalogMigrations.migrate(old, upTo: "0009_web_origins")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO items (key, source, pixel_width, pixel_height, width, height, sort_date, changed_generation)
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                SELECT CAST('key-' || i AS BLOB), 1, 10, 20, 10, 20, '2020-01-01', 1 FROM n;
                UPDATE catalog SET generation = 1;
                """)
        }
        try old.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let filler = disk + "/filler"
        try Self.fill(disk, filler: filler)

        let refused = Result { () throws(StoreError) in try Catalog.open(at: path) }
        guard case .failure(let error) = refused, case .full(let at, let reason) = error else {
            Issue.record("an upgrade on a full disk: \(refused)")
            return
        }
        // The catalog's file of stored layouts is made before the upgrade: that is what has no room.
        #expect(at == path && reason.hasPrefix("no room on the catalog's disk (0 KiB free)"), "\(reason)")
        let applied = try old.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied.last == "0009_web_origins", "each migration that did not fit was rolled back")

        try FileManager.default.removeItem(atPath: filler)
        #expect(try Catalog.open(at: path).items(order: .path).count == 3000)
        // Upgraded, its order data stale (an opening cut short), the disk full again: the
        // rebuild does not fit, and the opening goes on without it.
        // (The WAL keeps this write: SQLite cannot open a catalog whose WAL is empty, to write
        // its header, on a disk with no byte free.)
        try old.write { db in try db.execute(sql: "UPDATE order_data SET generation = -1") }
        try Self.fill(disk, filler: filler)
        let catalog = try Catalog.open(at: path)
        #expect(try catalog.items(order: .path).count == 3000)
        #expect(try catalog.page(PageRequest(configuration: LayoutConfiguration(width: 414), position: .offset(0), height: 900)).items.isEmpty == false, "pages from the item rows")
        try FileManager.default.removeItem(atPath: filler)
        try old.close()
    }
}
