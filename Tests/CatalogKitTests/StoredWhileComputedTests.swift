@testable import CatalogKit
@testable import CatalogStore
import Foundation
import Synchronization
import Testing

/// A layout never laid out before is stored while it is computed (`Pager.computeStoring`): its
/// windows go to the store as they settle, on a thread of their own. What is stored is what a
/// store after the computation writes, on both backends, and a computation that fails or a
/// catalog that moved on stores nothing.
@Suite struct StoredWhileComputedTests {
    /// The stored layout of `configuration` and every window of it.
    static func stored(_ catalog: Catalog, _ configuration: LayoutConfiguration) throws -> (layout: StoredLayout, windows: [[UInt8]])? {
        try catalog.store.withSnapshot { snapshot in
            try snapshot.layout(configuration: configuration.key).map { ($0, try snapshot.allWindows(layoutID: $0.id)) }
        }
    }

    static func configurations() -> [LayoutConfiguration] {
        var waterfall = LayoutConfiguration(width: 375)
        waterfall.windowHeight = 700 // windows of several segments
        var grid = LayoutConfiguration(width: 1024)
        (grid.style, grid.columns, grid.windowHeight) = (.grid, 5, 300)
        var list = LayoutConfiguration(width: 414)
        (list.style, list.order) = (.list, .path)
        return [waterfall, grid, list]
    }

    @Test(arguments: Backend.allCases, configurations())
    func aLayoutStoredWhileComputedIsTheLayoutStoredAfter(_ backend: Backend, _ configuration: LayoutConfiguration) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        _ = try catalog.importItems(PagerTests.importRows(9000)) // three pieces of the order data
        #expect(configuration.storesWhileComputing)

        let (layout, source, _) = try catalog.precompute(configuration)
        #expect(source == .computed)
        let streamed = try #require(try Self.stored(catalog, configuration))
        #expect(streamed.layout.id == layout.id && streamed.layout.itemCount == 9000)
        #expect(streamed.windows.count > 3 * 64, "several segments")

        // The same configuration stored once computed, as a server stores it.
        #expect(try catalog.dropLayout(configuration))
        let computed = try #require(try catalog.computeLayout(configuration))
        #expect(try catalog.storeLayout(computed))
        let after = try #require(try Self.stored(catalog, configuration))
        #expect(streamed.windows == after.windows)
        #expect(streamed.layout.header == after.layout.header)
        #expect(streamed.layout.bytes == after.layout.bytes, "the same segments, directories included")
        #expect(streamed.layout.contentHeight == after.layout.contentHeight && streamed.layout.generation == after.layout.generation)

        // The first page of a configuration never laid out is stored while computed too, and
        // is the page read back from what was stored.
        #expect(try catalog.dropLayout(configuration))
        let request = PageRequest(configuration: configuration, position: .offset(5000), height: 812)
        let first = try catalog.page(request)
        #expect(first.source == .computed)
        #expect(try Self.stored(catalog, configuration)?.windows == after.windows)
        let again = try catalog.page(request)
        #expect(again.source == .stored)
        #expect(again.items == first.items && !first.items.isEmpty)
    }

    /// The store's side: segments written as they come, the row's summary at the end; a
    /// stream whose computation fails leaves nothing, and a store that stopped (here, the
    /// catalog moved on) stops taking, so the computation never waits for it.
    @Test(arguments: Backend.allCases)
    func aStreamThatFailsStoresNothing_andAStoreThatStopsStopsTakingIt(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let generation = try catalog.importItems(PagerTests.importRows(10)).generation
        let store = catalog.store
        func segment(_ first: Int) -> (Range<Int>, LayoutSegment.Encoded) {
            let range = first..<(first + LayoutSegment.windowsPerSegment)
            return (range, LayoutSegment.encode(LayoutWindows.Packed(bytes: [UInt8](repeating: 3, count: range.count * 8),
                                                                     ends: (1...range.count).map { $0 * 8 },
                                                                     minIndices: Array(range), maxIndices: Array(range))))
        }
        func save(_ stream: LayoutSegmentStream, _ configuration: String = "streamed", generation: Int64) -> BackgroundCall<LayoutSave, StoreError> {
            BackgroundCall { () throws(StoreError) -> LayoutSave in
                defer { stream.stop() }
                return try store.saveLayout(configuration: configuration, order: .date, generation: generation,
                                            windows: LayoutWindows(stream: stream), replacing: nil, keeping: 0)
            }
        }
        func rows() throws -> Int { try catalog.layouts().count }
        /// SQLite's count of stores taking a stream, back at 0 whatever became of each.
        func noStreamTaken() -> Bool { (store as? SQLiteStore).map { $0.streamedStores.load(ordering: .relaxed) == 0 } ?? true }

        let stored = LayoutSegmentStream()
        let storing = save(stored, generation: generation)
        for first in stride(from: 0, to: 40 * 64, by: 64) { #expect(stored.put(segment(first).0, segment(first).1)) }
        stored.finish(.init(itemCount: 10, contentHeight: 5, header: [9], computeSeconds: 0.5))
        #expect(try storing.wait() == .stored)
        #expect(noStreamTaken())
        let layout = try #require(try catalog.layouts().first)
        #expect(layout.itemCount == 10 && layout.contentHeight == 5 && layout.header == [9] && layout.computeSeconds == 0.5)
        let windows = try catalog.store.withSnapshot { try $0.allWindows(layoutID: layout.id) }
        #expect(windows.count == 40 * 64 && windows.allSatisfy { $0 == [UInt8](repeating: 3, count: 8) })

        let failing = LayoutSegmentStream()
        let abandoned = save(failing, "failed", generation: generation)
        for first in stride(from: 0, to: 40 * 64, by: 64) { failing.put(segment(first).0, segment(first).1) }
        failing.fail()
        #expect(try abandoned.wait() == .abandoned)
        #expect(noStreamTaken())
        #expect(try rows() == 1, "the failed layout's row and segments are gone")
        #expect(try catalog.layouts().first?.id == layout.id)
        #expect(try catalog.store.withSnapshot { try $0.allWindows(layoutID: layout.id + 1) }.isEmpty)

        let stale = LayoutSegmentStream()
        let movedOn = save(stale, generation: generation - 1)
        #expect(try movedOn.wait() == .catalogMovedOn)
        #expect(noStreamTaken())
        var puts = 0
        while stale.put(segment(puts * 64).0, segment(puts * 64).1) { puts += 1; if puts > 64 { break } }
        #expect(puts < 64, "a stopped store takes no more: puts fail at the first handover")
        stale.finish(.init(itemCount: 10, contentHeight: 5, header: [9], computeSeconds: 0))
    }

    /// A layout that fails partway, once windows of its first pieces went to the store (its
    /// last items, strips 1,000 times as tall as wide, would take its columns past the windows
    /// the layout may have: 32,768 windows of 64 points each), throws the layout's error and
    /// stores nothing; computed again, the same. SQLite's store took the stream each time, and
    /// let go of it.
    @Test(arguments: Backend.allCases)
    func aLayoutThatFailsPartwayThrowsItsErrorAndStoresNothing(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let strips = (0..<20).map { ImportRow(line: 7_000 + $0, key: "strip-\($0)", width: 10, height: 10_000, date: "1990-01-01T00:00:00") }
        let generation = try catalog.importItems(PagerTests.importRows(6_000) + strips).generation
        var configuration = LayoutConfiguration(width: 375)
        configuration.windowHeight = 64
        #expect(configuration.storesWhileComputing)
        let sqlite = catalog.store as? SQLiteStore
        for attempt in 1...2 {
            let error = #expect(throws: PageError.self) {
                _ = try Pager.computeStoring(configuration, store: catalog.store, generation: generation) { computed, _ in computed.table.count }
            }
            guard case .layout(.tooManyWindows)? = error else {
                Issue.record("attempt \(attempt): \(String(describing: error)), not the layout's window limit")
                continue
            }
            #expect(try catalog.layouts().isEmpty, "attempt \(attempt): nothing stored")
            if let sqlite {
                #expect(sqlite.streamedStoresBegun.load(ordering: .relaxed) == attempt, "the store took the stream")
                #expect(sqlite.streamedStores.load(ordering: .relaxed) == 0, "and let go of it")
            }
        }
        // With the strips as wide as tall the same configuration lays out, and is stored while computed.
        _ = try catalog.importItems(strips.map { ImportRow(line: $0.line, key: $0.key, width: 10, height: 10, date: $0.date) })
        _ = try catalog.page(PageRequest(configuration: configuration))
        #expect(try catalog.layouts().count == 1)
    }

    /// Two stores of one configuration at once, the second begun while the first's layout is
    /// still being computed: on PostgreSQL the second waits for the first's row and, once the
    /// first commits, gives up (`replaced`), leaving the first's layout; on SQLite, where the
    /// first holds the file only while it writes a piece, the second stores its layout at once
    /// and the first gives up at its next piece (the last to begin wins). Either way one layout
    /// is stored, and neither fails.
    @Test(arguments: Backend.allCases)
    func twoStoresOfOneConfigurationAtOnceLeaveOneLayout(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let generation = try catalog.importItems(PagerTests.importRows(10)).generation
        let other = try library.catalog() // another process, as far as the store is concerned
        let summary = LayoutWindows.Summary(itemCount: 10, contentHeight: 7, header: [9], computeSeconds: 0)
        @Sendable func packed(_ range: Range<Int>, _ byte: UInt8) -> LayoutWindows.Packed {
            LayoutWindows.Packed(bytes: [UInt8](repeating: byte, count: range.count * 8), ends: (1...range.count).map { $0 * 8 },
                                 minIndices: Array(range), maxIndices: Array(range))
        }
        let stream = LayoutSegmentStream()
        let first = BackgroundCall { () throws(StoreError) -> LayoutSave in
            defer { stream.stop() }
            return try catalog.store.saveLayout(configuration: "both", order: .date, generation: generation,
                                                windows: LayoutWindows(stream: stream), replacing: nil, keeping: 0)
        }
        stream.waitForStore() // its row is written (uncommitted on PostgreSQL) and its file held (SQLite)
        let second = BackgroundCall { () throws(StoreError) -> LayoutSave in
            try other.store.saveLayout(configuration: "both", order: .date, generation: generation,
                                       windows: LayoutWindows(count: 64, summary: summary) { packed($0, 2) }, replacing: nil, keeping: 0)
        }
        var saves: [LayoutSave] = []
        if backend == .sqlite { saves.append(try second.wait()) } // while the first waits for its computation
        if backend == .postgres { // the second waits for the first's row before the first goes on
            let database = OrderDataTests.database(library)
            let deadline = Date().addingTimeInterval(30)
            func waiting() throws -> Bool {
                try TestPostgres.psql(database, """
                    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                    """).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            }
            while try !waiting(), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(try waiting(), "the second store waits for the first's row")
        }
        for start in stride(from: 0, to: 64 * 40, by: 64) { stream.put(start..<(start + 64), LayoutSegment.encode(packed(start..<(start + 64), 1))) }
        stream.finish(summary)
        saves.insert(try first.wait(), at: 0)
        if backend == .postgres { saves.append(try second.wait()) }
        let layouts = try catalog.layouts()
        #expect(layouts.count == 1)
        let windows = try catalog.store.withSnapshot { try $0.allWindows(layoutID: layouts[0].id) }
        switch backend {
        case .sqlite:
            #expect(saves == [.replaced, .stored], "the second stored at once; the first gave up at its next piece")
            #expect(windows.count == 64 && windows.allSatisfy { $0.allSatisfy { $0 == 2 } }, "the second's layout")
        case .postgres:
            #expect(saves == [.stored, .replaced], "the second waited for the first's row, then gave up")
            #expect(windows.count == 64 * 40 && windows.allSatisfy { $0.allSatisfy { $0 == 1 } }, "the first's layout")
        }
    }

    /// A catalog that moved on between the snapshot that found no layout and the computation:
    /// nothing is computed or stored at the old generation.
    @Test(arguments: Backend.allCases)
    func aCatalogThatMovedOnStoresNothing(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let old = try catalog.importItems(PagerTests.importRows(300)).generation
        _ = try catalog.importItems(PagerTests.importRows(10, from: 300))
        let configuration = LayoutConfiguration(width: 375)
        let made = try Pager.computeStoring(configuration, store: catalog.store, generation: old) { computed, _ in computed.table.count }
        #expect(made == nil)
        #expect(try catalog.layouts().isEmpty)
        let (layout, _, _) = try catalog.precompute(configuration)
        #expect(layout.itemCount == 310)
    }
}
