import CatalogKit
import CatalogModel
@testable import CatalogStore
import Foundation
import Synchronization
import GRDB
import Testing

/// `<catalog>.layouts` after a writer that died mid-transaction (its journal), under readers
/// that hold it, and as layouts are removed.
@Suite struct LayoutFileJournalTests {
    let pager = PagerTests()
    let configuration = LayoutConfiguration(width: 375)

    func layoutFile(_ library: Library) throws -> DatabaseQueue { try DatabaseQueue(path: library.layoutFilePath) }

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

    static func python(_ script: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
