import CatalogModel
import CatalogStore
import Foundation
import Synchronization
import GRDB
import Testing

/// A temporary folder, removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

@Suite struct CatalogStoreTests {
    static let migrationsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Migrations")

    static func schema(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        }
    }

    @Test func everyMigrationFileIsEmbeddedAndApplied_inOrder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsFolder.path)
            .filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }.sorted()
        #expect(!files.isEmpty)
        #expect(CatalogMigrations.identifiers == files)
        let folder = try TemporaryFolder()
        let store = try SQLiteStore.open(at: folder.path("new/sub/catalog.sqlite"))
        let applied = try DatabaseQueue(path: store.path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        #expect(applied == files)
        #expect(try store.generation() == 0)
        let journal = try DatabaseQueue(path: store.path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")

        // The layout file's own, recorded in it.
        let layoutFiles = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsFolder.appendingPathComponent("layouts").path)
            .filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }.sorted()
        #expect(!layoutFiles.isEmpty)
        #expect(CatalogMigrations.layoutFileIdentifiers == layoutFiles)
        let appliedToLayouts = try DatabaseQueue(path: store.path + ".layouts").read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM migrations ORDER BY rowid")
        }
        #expect(appliedToLayouts == layoutFiles)
    }

    /// A catalog made by an older build, migration by migration, ends with the schema of a new one.
    @Test func anUpgradedCatalogEndsWithTheSchemaOfAFreshOne() throws {
        let folder = try TemporaryFolder()
        let fresh = try SQLiteStore.open(at: folder.path("fresh.sqlite")).path
        let old = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: old)
        for id in CatalogMigrations.identifiers { try CatalogMigrations.migrate(queue, upTo: id) }
        try queue.close()
        let upgraded = try SQLiteStore.open(at: old).path
        #expect(try Self.schema(upgraded) == Self.schema(fresh))
        #expect(try Self.schema(fresh).contains { $0.hasPrefix("table items:") })
        #expect(try Self.schema(upgraded + ".layouts") == Self.schema(fresh + ".layouts"))
        #expect(try Self.schema(fresh + ".layouts").contains { $0.hasPrefix("table layout_segments:") })
    }

    /// Processes opening an old catalog at the same moment (a scan from cron as a server starts):
    /// each finds the migrations the others applied and carries on, where the second to reach a
    /// migration used to fail on it ("UNIQUE constraint failed: grdb_migrations.identifier").
    @Test func openingsOfAnOldCatalogAtOnceAllSucceed() throws {
        let folder = try TemporaryFolder()
        let fresh = try SQLiteStore.open(at: folder.path("fresh.sqlite")).path
        for round in 0..<8 {
            let path = folder.path("old\(round).sqlite")
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
            try CatalogMigrations.migrate(queue, upTo: "0009_web_origins")
            try queue.close()
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                do { _ = try SQLiteStore.open(at: path) } catch { failures.withLock { $0.append("\(error)") } }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            #expect(try Self.schema(path) == Self.schema(fresh))
        }
    }

    /// 0010 rebuilds the files table: every record survives, with its item, and the status
    /// check still refuses what it refused.
    @Test func whenTheFilesTableIsRebuilt_thenEveryRecordSurvives_andTheCheckStillHolds() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try CatalogMigrations.migrate(queue, upTo: "0009_web_origins")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO roots (id, path) VALUES (1, x'2f70');
                INSERT INTO items (id, key, source, format, pixel_width, pixel_height, width, height, sort_date, changed_generation)
                    VALUES (7, x'2f702f612e6a7067', 0, 'jpeg', 4, 3, 4, 3, '2024-01-01T00:00:00', 0);
                INSERT INTO files VALUES (x'2f702f612e6a7067', 1, 2049, 11, 100, 5, 42, 0, 7, NULL),
                                         (x'2f702f622e747874', 1, 2049, 12, 9, 6, NULL, 1, NULL, NULL),
                                         (x'2f702f632e6a7067', 1, 2049, 13, 0, 7, NULL, 2, NULL, 'truncated');
                """)
        }
        let before = try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM files ORDER BY path").map(\.description) }
        try queue.close()
        let store = try SQLiteStore.open(at: path)
        let after = try store.read { db in try Row.fetchAll(db, sql: "SELECT * FROM files ORDER BY path").map(\.description) }
        #expect(after == before)
        #expect(after.count == 3)
        #expect(throws: DatabaseError.self) {
            try store.pool.write { db in
                try db.execute(sql: "INSERT INTO files VALUES (x'2f702f64', 1, 1, 1, 1, 1, NULL, 3, NULL, NULL)")
            }
        }
        // Deleting the item still clears the file's reference (the foreign key came along).
        try store.pool.write { db in try db.execute(sql: "DELETE FROM items WHERE id = 7") }
        #expect(try store.read { db in try Bool.fetchOne(db, sql: "SELECT item_id IS NULL FROM files WHERE path = x'2f702f612e6a7067'") } == true)
    }

    @Test func aFileThatIsNotACatalogIsRefused_andLeftUntouched() throws {
        let folder = try TemporaryFolder()
        let text = folder.path("notes.sqlite")
        try Data("just some text, not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let other = folder.path("other.sqlite")
        try DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')") }
        // One in WAL mode: SQLite makes its -shm and -wal to read it (they were left beside it).
        let wal = folder.path("wal.sqlite")
        try DatabaseQueue(path: wal).inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE songs (title TEXT)")
        }
        for path in [text, other, wal] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect { try SQLiteStore.open(at: path) } throws: { error in
                guard case StoreError.notACatalog(let p, _) = error else { return false }
                return p == path
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"), "\(path)")
        }
    }

    @Test func aCatalogFromANewerVersionIsRefused_andLeftUntouched() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("catalog.sqlite")
        _ = try SQLiteStore.open(at: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('9999_from_the_future')") }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.newerVersion(path: path, unknownMigrations: ["9999_from_the_future"])) { try SQLiteStore.open(at: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"), "nothing left beside it")
        #expect(StoreError.newerVersion(path: path, unknownMigrations: ["9999_x"]).description.contains("newer version"))
    }

    @Test func importsUpsertByKey_andAFailedImportChangesNothing() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore.open(at: folder.path("catalog.sqlite"))
        let first = try store.importItems([
            ImportRow(line: 2, key: "pin-1", width: 400, height: 300, orientation: 6, date: "2024-01-02T03:04:05", url: "https://x/1", title: "One"),
            ImportRow(line: 3, key: "pin-2", width: 100, height: 200),
        ], importedAt: "2026-01-01T00:00:00")
        #expect(first == ImportSummary(added: 2, updated: 0, unchanged: 0, generation: 1))
        let items = try store.items(order: .path)
        #expect(items.map { String(decoding: $0.key, as: UTF8.self) } == ["pin-1", "pin-2"])
        #expect((items[0].width, items[0].height, items[0].orientation) == (300, 400, 6), "orientation 6 swaps the display size")
        #expect(items[0].date == "2024-01-02T03:04:05")
        #expect(items[1].date == "2026-01-01T00:00:00", "without a date, the import date orders it")
        let second = try store.importItems([ImportRow(line: 2, key: "pin-2", width: 50, height: 60), ImportRow(line: 3, key: "pin-3", width: 1, height: 1)],
                                           importedAt: "2026-01-02T00:00:00")
        #expect(second == ImportSummary(added: 1, updated: 1, generation: 2))
        #expect(try store.items(order: .path).first { $0.key == Data("pin-2".utf8) }?.id == items[1].id, "an upsert keeps the id")
        try store.apply([FileChange(path: Data("/photos/a.jpg".utf8), stat: FileStat(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4), fingerprint: nil,
                                    outcome: .image(ImageFacts(format: "jpeg", pixelWidth: 1, pixelHeight: 1, orientation: 1, width: 1, height: 1, bytes: 3, captureDate: nil, modifiedAt: "2020-01-01T00:00:00")),
                                    itemID: nil)], rootID: try store.rootID(for: Data("/photos".utf8)))
        let generation = try store.generation()
        #expect(throws: StoreError.invalidInput(line: 7, reason: "key \"/photos/a.jpg\" is a scanned file's path")) {
            try store.importItems([ImportRow(line: 6, key: "pin-9", width: 5, height: 5), ImportRow(line: 7, key: "/photos/a.jpg", width: 5, height: 5)],
                                  importedAt: "2026-01-03T00:00:00")
        }
        #expect(try store.items(order: .path).count == 4, "the refused import left nothing behind")
        #expect(try store.generation() == generation)
    }

    /// An import upserts many rows per statement: updates and inserts mixed in one statement
    /// count as such, and a refused row among them is still the one named, with its line.
    @Test func rowsUpsertedManyToAStatement_countAndRefuseAsOneByOne() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore.open(at: folder.path("catalog.sqlite"))
        try store.apply([FileChange(path: Data("/photos/a.jpg".utf8), stat: FileStat(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4), fingerprint: nil,
                                    outcome: .image(ImageFacts(format: "jpeg", pixelWidth: 1, pixelHeight: 1, orientation: 1, width: 1, height: 1, bytes: 3, captureDate: nil, modifiedAt: "2020-01-01T00:00:00")),
                                    itemID: nil)], rootID: try store.rootID(for: Data("/photos".utf8)))
        func rows(_ count: Int, width: Int = 10, keys: [Int: String] = [:]) -> [ImportRow] {
            (0..<count).map { index in
                ImportRow(line: index + 2, key: keys[index] ?? "pin-\(index)", width: width + index, height: 7, orientation: index % 8 + 1,
                          date: "2025-01-01T00:00:00", url: "https://cdn\(index / 100).example/\(index)", title: "t\(index)")
            }
        }
        #expect(try store.importItems(rows(200), importedAt: "2026-01-01T00:00:00") == ImportSummary(added: 200, updated: 0, generation: 2))
        // 200 updates, then 300 inserts: statements of both, and one of each mixed.
        let mixed = try store.importItems(rows(500, width: 1000), importedAt: "2026-01-02T00:00:00")
        #expect((mixed.added, mixed.updated) == (300, 200))
        let stored = Dictionary(uniqueKeysWithValues: try store.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0) })
        #expect(stored.count == 501)
        for index in [0, 63, 64, 150, 199, 200, 263, 264, 499] {
            let item = try #require(stored["pin-\(index)"])
            let swapped = index % 8 + 1 >= 5
            #expect((item.pixelWidth, item.pixelHeight, item.orientation) == (1000 + index, 7, index % 8 + 1))
            #expect((item.width, item.height) == (swapped ? (7, 1000 + index) : (1000 + index, 7)), "pin-\(index)")
            #expect((item.url, item.title) == ("https://cdn\(index / 100).example/\(index)", "t\(index)"))
        }
        #expect(try store.webOrigins(limit: 10) == (0..<5).map { "https://cdn\($0).example" })
        // Ids as one row per statement gives them: the scanned file 1, the first import 2-201;
        // an update takes none, so the new rows take 202-501, in line order.
        let ids: [Int64?] = (0..<500).map { index in stored["pin-\(index)"]?.id }
        let expectedIDs: [Int64?] = (0..<500).map { Int64(2 + $0) }
        #expect(ids == expectedIDs)
        let generation = try store.generation()
        // Refused rows deep in a statement's rows, each named by its own line: a key twice in the
        // same statement, twice across statements, and a scanned file's path.
        for (keys, line, reason) in [([100: "pin-70"], 102, "key \"pin-70\" appears twice"),
                                     ([130: "pin-10"], 132, "key \"pin-10\" appears twice"),
                                     ([150: "/photos/a.jpg", 170: "pin-160"], 152, "key \"/photos/a.jpg\" is a scanned file's path")] {
            #expect(throws: StoreError.invalidInput(line: line, reason: reason)) {
                try store.importItems(rows(300, width: 5, keys: keys), importedAt: "2026-01-03T00:00:00")
            }
        }
        // A row the table's CHECK refuses (the parser never lets a width of 0 through), deep in a
        // statement: the statement fails, and one row at a time fails at that row.
        var zero = rows(300, width: 5)
        zero[140].width = 0
        #expect { try store.importItems(zero, importedAt: "2026-01-03T00:00:00") } throws: { error in
            "\(error)".contains("CHECK constraint failed: pixel_width > 0")
        }
        #expect(try store.generation() == generation)
        #expect(try store.itemCount() == 501)
        #expect(try store.items(order: .path).first { $0.key == Data("pin-100".utf8) }?.pixelWidth == 1100, "nothing of the refused imports stayed")
    }

    /// The import's shortcut for an address with the previous one's origin answers as making
    /// the origin would, for every pair of these addresses.
    @Test func anAddressHasAnOrigin_exactlyWhenMakingItsOriginGivesThatOrigin() {
        let addresses = ["https://i.pinimg.com/a.jpg", "HTTPS://I.PINIMG.COM/b.jpg", "https://i.pinimg.com", "https://i.pinimg.com?x",
                         "https://i.pinimg.com#f", "https://i.pinimg.com:443/a", "https://i.pinimg.com.evil/a", "https://i.pinimg.co/a",
                         "http://i.pinimg.com/a", "https://", "https:///a", "ftp://i.pinimg.com/a", "https://i.pinimg.comx", "/relative",
                         "https://ünï.example/a", "https://ÜNÏ.example/a", "", "https://i.pinimg.com:/a", "https://i.pinimg.com:",
                         "https://i.pinimg.com\\a.jpg", "https://i.pinimg.com:\\a", "https://i.pinimg.com::/a"]
        let origins = addresses.compactMap(WebOrigin.origin(of:))
        #expect(!origins.isEmpty)
        #expect(WebOrigin.origin(of: "https://i.pinimg.com/a.jpg") == Array("https://i.pinimg.com".utf8))
        #expect(WebOrigin.origin(of: "HTTPS://I.PINIMG.COM/b.jpg") == Array("https://i.pinimg.com".utf8), "lowercased")
        #expect(WebOrigin.origin(of: "ftp://i.pinimg.com/a") == nil)
        // What a browser loads such an address from: an empty port is the default one, and a
        // backslash is a slash (the policy listed "https://cdn.example:", which browsers ignore).
        #expect(WebOrigin.origin(of: "https://i.pinimg.com:/a.jpg") == Array("https://i.pinimg.com".utf8))
        #expect(WebOrigin.origin(of: "https://i.pinimg.com\\a.jpg") == Array("https://i.pinimg.com".utf8))
        // A host no browser loads, longer than PostgreSQL indexes: no origin, on both stores alike.
        #expect(WebOrigin.origin(of: "https://" + String(repeating: "h", count: 3000) + ".example.com/2.jpg") == nil)
        #expect(WebOrigin.origin(of: "https://" + String(repeating: "h", count: 253) + "/a") != nil)
        for origin in origins {
            for address in addresses {
                #expect(WebOrigin.is(address, from: origin) == (WebOrigin.origin(of: address) == origin),
                        "\(address) from \(String(decoding: origin, as: UTF8.self))")
            }
        }
    }

    @Test func anImportRefusedAfterItsPagesWentToTheWAL_leavesNothing_andALongOneKeepsEveryRow() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("catalog.sqlite")
        let store = try SQLiteStore.open(at: path)
        _ = try store.importItems([ImportRow(line: 2, key: "kept", width: 1, height: 1)], importedAt: "2026-01-01T00:00:00")
        let generation = try store.generation()
        // Past the mark where the import writes its dirty pages to the WAL, then a key seen twice.
        let rows = SQLiteStore.importFlushRows + 10_000
        func batches(repeating repeated: Int?) -> () throws(StoreError) -> [ImportRow]? {
            var next = 0
            return { () throws(StoreError) -> [ImportRow]? in
                guard next < rows else { return nil }
                let end = min(rows, next + 4096)
                defer { next = end }
                return (next..<end).map { index in
                    let key = index == rows - 1 && repeated != nil ? "pin-\(repeated!)" : "pin-\(index)"
                    return ImportRow(line: index + 2, key: key, width: 100 + index % 50, height: 100, date: "2025-\(String(format: "%02d", 1 + index % 12))-01T00:00:00")
                }
            }
        }
        #expect(throws: StoreError.invalidInput(line: rows + 1, reason: "key \"pin-5\" appears twice")) {
            try store.importItems(from: batches(repeating: 5), importedAt: "2026-01-02T00:00:00")
        }
        #expect(try store.itemCount() == 1)
        #expect(try store.generation() == generation)
        #expect(try SQLiteStore.open(at: path).itemCount() == 1, "nothing of it on disk either")
        let summary = try store.importItems(from: batches(repeating: nil), importedAt: "2026-01-03T00:00:00")
        #expect((summary.added, summary.updated) == (rows, 0))
        let reopened = try SQLiteStore.open(at: path)
        #expect(try reopened.itemCount() == rows + 1)
        #expect(try reopened.items(order: .date, limit: nil, offset: 0).count == rows + 1, "the date index holds every row")
    }

    @Test func anImportIntoAnEmptyCatalog_buildsItsDateIndexAtTheEnd_andARefusedOneLeavesTheIndex() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("catalog.sqlite")
        let store = try SQLiteStore.open(at: path)
        let schema = try Self.schema(path)
        #expect(schema.contains { $0.hasPrefix("index items_by_date: CREATE INDEX") })
        let dates = (0..<5_000).map { index in String(format: "20%02d-%02d-01T00:00:00", (index * 7919) % 30, 1 + index % 12) }
        func rows(repeatingAt repeated: Int? = nil) -> [ImportRow] {
            dates.enumerated().map { index, date in
                let key = index == repeated ? "pin-0" : "pin-\(index)"
                return ImportRow(line: index + 2, key: key, width: 10 + index % 90, height: 10, date: date)
            }
        }
        // The last row goes alone; row 100 is inside a statement of many, undone to its savepoint
        // after the index was dropped (a schema change: SQLite prepares the statements again).
        for repeated in [dates.count - 1, 100] {
            #expect(throws: StoreError.invalidInput(line: repeated + 2, reason: "key \"pin-0\" appears twice")) {
                try store.importItems(rows(repeatingAt: repeated), importedAt: "2026-01-01T00:00:00")
            }
            #expect(try Self.schema(path) == schema, "the refused import's dropped index came back with its rollback")
            #expect(try store.itemCount() == 0)
        }
        _ = try store.importItems(rows(), importedAt: "2026-01-01T00:00:00")
        #expect(try Self.schema(path) == schema, "the index is made again with the migration's own statement")
        // The date order (newest first, ties by key) as the index gives it, against a sort here.
        let expected = dates.indices.sorted { dates[$0] != dates[$1] ? dates[$0] > dates[$1] : "pin-\($0)" < "pin-\($1)" }.map { "pin-\($0)" }
        let byDate = try store.items(order: .date, limit: nil, offset: 0).map { String(decoding: $0.key, as: UTF8.self) }
        #expect(byDate == expected)
        let plan = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM items ORDER BY sort_date DESC, key").map { $0["detail"] as String }.joined()
        }
        #expect(plan.contains("items_by_date"), "\(plan)")
    }
}
