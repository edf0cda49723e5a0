import CatalogKit
import CatalogLayout
import Foundation
import Testing

/// Change sets against `catalog list` as the truth, on both stores: random sequences of adds, removals,
/// renames, modifications and moves between folders on real files, a scan after each; for every
/// pair of generations the change set applied to the old order gives the new order, and names
/// exactly the items whose key, date or size changed.
@Suite struct ChangeSetTests {
    static let fixtures = ["baseline.jpg", "cmyk.jpg", "grayscale.jpg", "progressive.jpg", "restart.jpg",
                           "gray-alpha.png", "interlaced.png", "palette.png", "rgb.png", "rgb16.png"]

    /// What one generation looked like: ids in each order, and each item's key, date and size.
    struct Snapshot {
        var generation: Int64
        var orders: [ItemOrder: [Int64]]
        var facts: [Int64: String]
    }

    static func snapshot(_ catalog: Catalog) throws -> Snapshot {
        var orders: [ItemOrder: [Int64]] = [:]
        var facts: [Int64: String] = [:]
        for order in ItemOrder.allCases {
            let items = try catalog.items(order: order)
            orders[order] = items.map(\.id)
            for item in items {
                // Its place and size, and what else a client shows of it: an update if any differs.
                facts[item.id] = "\(PathText.display(item.key)) \(item.date) \(item.width)x\(item.height) \(item.format ?? "-") "
                    + "\(item.pixelWidth)x\(item.pixelHeight)/\(item.orientation) \(item.bytes ?? -1) \(item.url ?? "-") \(item.title ?? "-")"
            }
        }
        return Snapshot(generation: try catalog.generation(), orders: orders, facts: facts)
    }

    /// A catalog of `rows` imported rows (`PagerTests.importRows`), its library (which keeps its
    /// folder) and its snapshot.
    static func importedCatalog(_ backend: Backend, rows: Int) throws -> (Library, Catalog, Snapshot) {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(rows))
        return (library, catalog, try snapshot(catalog))
    }

    /// The change set since `old` applied to its order gives `now`'s, naming the changed items.
    static func expectChanges(_ catalog: Catalog, from old: Snapshot, to now: Snapshot, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for order in ItemOrder.allCases {
            let set = try catalog.changes(ChangeRequest(since: old.generation, order: order))
            #expect(!set.reload && set.from == old.generation && set.to == now.generation, sourceLocation: sourceLocation)
            let before = old.orders[order]!, after = now.orders[order]!
            let u = set.updates
            var list: [Int64?] = before
            for delete in u.deletes { #expect(before[delete.index] == delete.id, sourceLocation: sourceLocation); list[delete.index] = nil }
            for move in u.moves { #expect(before[move.from] == move.id, sourceLocation: sourceLocation); list[move.from] = nil }
            var kept = list.compactMap { $0 }.makeIterator()
            var applied: [Int64?] = Array(repeating: nil, count: after.count)
            for insert in u.inserts where insert.index < after.count { applied[insert.index] = insert.id }
            for move in u.moves where move.to < after.count { applied[move.to] = move.id }
            for index in applied.indices where applied[index] == nil { applied[index] = kept.next() }
            #expect(kept.next() == nil && applied.map { $0 ?? -1 } == after,
                    "\(order) order, generation \(old.generation) → \(now.generation)", sourceLocation: sourceLocation)
            let changed = Set(after.filter { old.facts[$0] != nil && old.facts[$0] != now.facts[$0] })
            let replaced = Set(u.deletes.map(\.id)).intersection(u.inserts.map(\.id))
            #expect(Set(u.updates.map(\.id)).union(replaced) == changed, "\(order) order, generation \(old.generation) → \(now.generation)",
                    sourceLocation: sourceLocation)
            for update in u.updates { #expect(after[update.index] == update.id && before[update.from] == update.id, sourceLocation: sourceLocation) }
            // UIKit's rule: an old index is deleted, moved or reloaded, at most one of them.
            #expect(Set(u.updates.map(\.from)).isDisjoint(with: u.deletes.map(\.index) + u.moves.map(\.from)), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Backend.allCases, [1, 2, 3])
    func randomFileChangesScannedAfterEach(_ backend: Backend, seed: UInt64) throws {
        let library = try Library(backend)
        var random = SplitMix(seed: seed)
        var files: [String] = []
        var folders = ["a", "b", "a/c"]
        var serial = 0
        func newName() -> String {
            serial += 1
            return "\(folders[Int(random.next() % UInt64(folders.count))])/f\(serial).\(Bool.random(using: &random) ? "jpg" : "png")"
        }
        func write(_ name: String) throws {
            let fixture = Self.fixtures.filter { $0.hasSuffix(name.suffix(3)) }.randomElement(using: &random)!
            let path = try library.write(name, try Library.fixture(fixture))
            // Dates decide the date order: a few distinct ones, so ties fall back on paths.
            var times = [timespec(tv_sec: 1_700_000_000 + Int(random.next() % 5) * 86_400, tv_nsec: 0)]
            times.append(times[0])
            utimensat(AT_FDCWD, path, times, 0)
        }
        for _ in 0..<8 { let name = newName(); try write(name); files.append(name) }
        _ = try library.scan()
        let catalog = try library.catalog()
        var history = [try Self.snapshot(catalog)]
        for step in 0..<14 {
            for _ in 0..<(1 + Int(random.next() % 3)) {
                switch random.next() % 6 {
                case 0: // add
                    let name = newName(); try write(name); files.append(name)
                case 1 where !files.isEmpty: // remove
                    let name = files.remove(at: Int(random.next() % UInt64(files.count)))
                    try FileManager.default.removeItem(atPath: library.path(name))
                case 2 where !files.isEmpty: // rename in its folder
                    let index = Int(random.next() % UInt64(files.count))
                    let folder = (files[index] as NSString).deletingLastPathComponent
                    serial += 1
                    let renamed = "\(folder)/r\(serial).\(files[index].suffix(3))"
                    try FileManager.default.moveItem(atPath: library.path(files[index]), toPath: library.path(renamed))
                    files[index] = renamed
                case 3 where !files.isEmpty: // modify: other content, size and date
                    try write(files[Int(random.next() % UInt64(files.count))])
                case 4 where !files.isEmpty: // move to another folder
                    let index = Int(random.next() % UInt64(files.count))
                    let moved = newName()
                    try FileManager.default.createDirectory(atPath: (library.path(moved) as NSString).deletingLastPathComponent,
                                                            withIntermediateDirectories: true)
                    try FileManager.default.moveItem(atPath: library.path(files[index]), toPath: library.path(moved))
                    files[index] = moved
                default: // a new folder
                    folders.append("n\(step)")
                }
            }
            _ = try library.scan()
            let now = try Self.snapshot(catalog)
            for old in history { try Self.expectChanges(catalog, from: old, to: now) }
            history.append(now)
        }
        #expect(history.last!.generation > history.first!.generation)
    }

    @Test(arguments: Backend.allCases)
    func importsThatUpsertAreUpdatesAndMoves(_ backend: Backend) throws {
        let (library, catalog, first) = try Self.importedCatalog(backend, rows: 30)
        defer { withExtendedLifetime(library) {} }
        var rows = PagerTests.importRows(40) // ten more
        rows[3].width += 5 // a new size: in place in path order
        rows[7].date = "1999-01-01T00:00:00" // an older date: moves in date order
        _ = try catalog.importItems(rows)
        let second = try Self.snapshot(catalog)
        try Self.expectChanges(catalog, from: first, to: second)
        let set = try catalog.changes(ChangeRequest(since: first.generation, order: .path))
        #expect(set.updates.inserts.count == 10 && set.updates.deletes.count == 0)
        // The same rows again: nothing changed, so no new generation; clients stay current.
        let again = try catalog.importItems(rows)
        #expect((again.added, again.updated, again.unchanged, again.generation) == (0, 0, 40, second.generation))
        let third = try Self.snapshot(catalog)
        #expect(third.generation == second.generation)
        #expect(try catalog.changes(ChangeRequest(since: second.generation)).updates.isEmpty)
        // One row changed among the same rows: one update, logged as one.
        rows[20].title = "retitled"
        rows[21].height += 1
        let one = try catalog.importItems(rows)
        #expect((one.added, one.updated, one.unchanged, one.generation) == (0, 2, 38, second.generation + 1))
        let fourth = try Self.snapshot(catalog)
        try Self.expectChanges(catalog, from: first, to: fourth)
        let pin20 = try #require(try catalog.items(order: .path).first { $0.key == Data(rows[20].key.utf8) })
        let pin21 = try #require(try catalog.items(order: .path).first { $0.key == Data(rows[21].key.utf8) })
        #expect(Set(try catalog.changes(ChangeRequest(since: second.generation)).updates.updates.map(\.id)) == [pin20.id, pin21.id],
                "a new title is an update of the item a client shows, as a new height is")
        // A new address alone, and a title changed and changed back: updates too (the log does
        // not compare the two ends of a content change; a client reloads the item once).
        rows[5].url = "https://elsewhere.example/5.jpg"
        rows[6].title = "for a moment"
        _ = try catalog.importItems(rows)
        rows[6].title = PagerTests.importRows(40)[6].title
        _ = try catalog.importItems(rows)
        let fifth = try Self.snapshot(catalog)
        let ids = Dictionary(uniqueKeysWithValues: try catalog.items(order: .path).map { (String(decoding: $0.key, as: UTF8.self), $0.id) })
        #expect(Set(try catalog.changes(ChangeRequest(since: fourth.generation)).updates.updates.map(\.id))
                == [ids[rows[5].key]!, ids[rows[6].key]!])
        #expect(fifth.facts[ids[rows[6].key]!] == fourth.facts[ids[rows[6].key]!])
    }

    /// A file rewritten within the second of its last write, at the same byte size and pixel
    /// size but with other pixels: the rescan reads it again and counts it updated, and every
    /// change set lists it as an update (its thumbnail is another), though nothing else the
    /// catalog keeps of it changed (Migrations/0017; the dates are whole seconds).
    @Test(arguments: Backend.allCases)
    func aFileRewrittenWithinItsSecondIsAnUpdate(_ backend: Backend) throws {
        let library = try Library(backend)
        var bytes = try Library.fixture("rgb.png")
        func write(nanoseconds: Int) throws {
            let path = try library.write("a.png", bytes)
            let time = timespec(tv_sec: 1_700_000_000, tv_nsec: nanoseconds)
            #expect(utimensat(AT_FDCWD, path, [time, time], 0) == 0)
        }
        try write(nanoseconds: 100_000_000)
        try library.write("b.png", try Library.fixture("palette.png"))
        _ = try library.scan()
        let catalog = try library.catalog()
        let before = try Self.snapshot(catalog)
        bytes[bytes.count - 20] ^= 0xff // in the last IDAT chunk: other pixels, the same size
        try write(nanoseconds: 600_000_000)
        let summary = try library.scan()
        #expect((summary.updated, summary.unchanged) == (1, 1))
        let after = try Self.snapshot(catalog)
        #expect(after.facts == before.facts && after.generation == before.generation + 1)
        let id = try #require(try library.items()[library.path("a.png")]?.id)
        for order in ItemOrder.allCases {
            let set = try catalog.changes(ChangeRequest(since: before.generation, order: order))
            #expect(!set.reload && set.updates.updates.map(\.id) == [id], "\(backend), \(order) order")
            #expect(set.updates.deletes.isEmpty && set.updates.inserts.isEmpty && set.updates.moves.isEmpty)
        }
        // Scanned again unchanged: no generation, no change.
        #expect(try library.scan().unchanged == 2)
        #expect(try catalog.generation() == after.generation)
    }

    /// A re-import of many rows, batches at a time (SQLite upserts 64 rows to a statement): rows
    /// whose date stays are written without their date, the rows whose date changed by an update
    /// after them, and a run of batches whose dates all changed by the upsert that sets them.
    /// Every way gives the facts, the orders, the change set and the ids that rows written one
    /// at a time would: only a new item takes an id, as on PostgreSQL. The rows that leave their
    /// items as they were count as unchanged.
    @Test(arguments: Backend.allCases)
    func reimportsInBatches_whateverShareOfTheirDatesChanged(_ backend: Backend) throws {
        let (library, catalog, first) = try Self.importedCatalog(backend, rows: 1_200)
        defer { withExtendedLifetime(library) {} }
        let original = PagerTests.importRows(1_200)
        var rows = original
        for index in stride(from: 5, to: 400, by: 37) { rows[index].date = "1999-01-01T00:00:00" } // a few in a batch
        for index in 400..<760 { rows[index].date = "2030-06-0\(1 + index % 9)T00:00:00" } // whole batches
        for index in stride(from: 3, to: 1_200, by: 50) { rows[index].width += 1 } // sizes, some with dates
        // Batches 15 to 18 (rows 960 on) move no date: the upsert without it, after the run of
        // batches that set it.
        let changed = zip(original, rows).filter { $0.date != $1.date || $0.width != $1.width }.count
        #expect(changed > 360 && changed < 1_100, "\(changed): most rows in some batches, none in others")
        rows.insert(ImportRow(line: 0, key: "new-in-the-middle", width: 10, height: 10, date: "2024-05-05T00:00:00"), at: 500)
        for index in rows.indices { rows[index].line = index + 2 }
        let summary = try catalog.importItems(rows)
        #expect((summary.added, summary.updated, summary.unchanged) == (1, changed, 1_200 - changed))
        let second = try Self.snapshot(catalog)
        try Self.expectChanges(catalog, from: first, to: second)
        for item in try catalog.items(order: .path) {
            let key = String(decoding: item.key, as: UTF8.self)
            let row = try #require(rows.first { $0.key == key })
            #expect(item.date == row.date && item.pixelWidth == row.width, "\(backend): \(key)")
        }
        #expect(second.orders[.path]!.sorted() == Array(1...1_201), "\(backend): ids kept, and the next one for the new row")
        try OrderDataTests.expectCurrent(catalog, "\(backend)")

        var twice = rows // a key twice in one batch, both times with a date that moves
        twice[10].date = "2002-01-01T00:00:00"
        twice[20] = twice[10]
        twice[20].line = 22
        twice[20].date = "2001-01-01T00:00:00"
        #expect { try catalog.importItems(twice) } throws: { error in
            guard case StoreError.invalidInput(let line, _) = error else { return false }
            return line == 22
        }
        #expect(try catalog.generation() == second.generation)
    }

    @Test(arguments: Backend.allCases)
    func generationsTheLogNoLongerHoldsOrAheadOfTheCatalogAreReloads(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(3))
        let start = try catalog.generation()
        let ahead = try catalog.changes(ChangeRequest(since: start + 1))
        #expect(ahead.reload && ahead.updates.isEmpty && ahead.to == start)
        #expect(try !catalog.changes(ChangeRequest(since: start)).reload)
        // Past the log's bound of generations: the oldest are pruned.
        var rows = PagerTests.importRows(1)
        for n in 0..<1040 {
            rows[0].width = 100 + n % 7
            _ = try catalog.importItems(rows)
        }
        let old = try catalog.changes(ChangeRequest(since: start))
        #expect(old.reload && old.updates.isEmpty)
        let recent = try catalog.changes(ChangeRequest(since: try catalog.generation() - 900))
        let pinned = try #require(try catalog.items(order: .path).first { $0.key == Data(rows[0].key.utf8) })
        #expect(!recent.reload && recent.updates.updates.map(\.id) == [pinned.id])
        // A catalog made before the change log answers "reload" for its older generations.
        #expect(try catalog.changes(ChangeRequest(since: 0)).reload)
    }

    /// An import that changes more than a tenth of the catalog (and more than 100,000 rows) is
    /// not logged row by row: across it, a change set is a reload; after it, the log goes on.
    /// Rows that leave their items as they were do not count.
    @Test(arguments: Backend.allCases)
    func aVeryLargeImportIsAReloadAcrossIt(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(20))
        let before = try catalog.generation()
        // 100,001 rows that change something: the first 20 rows are those already imported,
        // unchanged but one, which do not count.
        var rows = PagerTests.importRows(100_020)
        rows[3].width += 1 // an update among the additions
        _ = try catalog.importItems(rows)
        let big = try catalog.generation()
        #expect(try catalog.changes(ChangeRequest(since: before)).reload)
        #expect(try !catalog.changes(ChangeRequest(since: big)).reload)
        rows[5].width += 1
        _ = try catalog.importItems([rows[5]]) // small: logged again
        let after = try Self.snapshot(catalog)
        let set = try catalog.changes(ChangeRequest(since: big, order: .path))
        #expect(!set.reload && set.updates.updates.map(\.index) == [5] && set.to == after.generation)
        // The whole export again with one row changed: one change, logged, not a reload.
        rows[9].height += 1
        let whole = try catalog.importItems(rows)
        #expect((whole.added, whole.updated, whole.unchanged) == (0, 1, 100_019))
        let changed = try catalog.changes(ChangeRequest(since: after.generation, order: .path))
        #expect(!changed.reload && changed.updates.updates.map(\.index) == [9] && changed.to == after.generation + 1)
    }

    @Test(arguments: Backend.allCases)
    func theCommandLineAndItsErrors(_ backend: Backend) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library(backend)
        _ = try library.catalog().importItems(PagerTests.importRows(5))
        let since = try library.catalog().generation()
        var rows = PagerTests.importRows(6)
        rows[0].width += 1
        _ = try library.catalog().importItems(rows)
        let db = ["--db", library.catalogPath]
        let text = try BuiltTool.run(["changes"] + db + ["--since", "\(since)", "--sort", "path"])
        #expect(text.status == 0)
        let lines = String(decoding: text.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "generation \(since) → \(since + 1), path order: 0 deletes, 1 insert, 0 moves, 1 update")
        let json = try BuiltTool.run(["changes"] + db + ["--since", "\(since)", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["from", "to", "sort", "reload", "deletes", "inserts", "moves", "updates"])
        #expect(object["reload"] as? Bool == false && (object["inserts"] as? [[String: Any]])?.count == 1)
        let reload = try BuiltTool.run(["changes"] + db + ["--since", "99"])
        #expect(reload.status == 0 && String(decoding: reload.stdout, as: UTF8.self).hasPrefix("reload:"))
        let bad = try BuiltTool.run(["changes"] + db + ["--since", "-1"])
        #expect(bad.status == 2 && bad.stderr.contains("--since"))
    }
}

/// A small seeded generator: the same sequence for the same seed on every machine.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
