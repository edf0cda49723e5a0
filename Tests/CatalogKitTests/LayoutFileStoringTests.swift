import CatalogKit
import CatalogModel
@testable import CatalogStore
import Foundation
import Synchronization
import GRDB
import Testing

/// Layouts stored into `<catalog>.layouts` in pieces while others read it, store the same
/// layout, or drop it.
@Suite struct LayoutFileStoringTests {
    let pager = PagerTests()
    let configuration = LayoutConfiguration(width: 375)

    func layoutFile(_ library: Library) throws -> DatabaseQueue { try DatabaseQueue(path: library.layoutFilePath) }

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
}
