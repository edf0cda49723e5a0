import CatalogKit
import CatalogModel
import CatalogStorePostgres
import Foundation
import Testing

/// `catalog serve` tells its operator when PostgreSQL's shared buffers hold less than half of
/// the items and their indexes (BENCHMARKS.md, "PostgreSQL with the memory its documentation
/// asks for"); SQLite has nothing to say.
@Suite struct ServingNotesTests {
    @Test func theNoteComesOnlyWhenTheItemsOutgrowTwiceTheBuffers() throws {
        let buffers: Int64 = 128 << 20
        #expect(PostgresStore.memoryNote(sharedBuffers: buffers, items: 2 * buffers) == nil)
        #expect(PostgresStore.memoryNote(sharedBuffers: buffers, items: 1) == nil)
        let note = try #require(PostgresStore.memoryNote(sharedBuffers: buffers, items: 2 * buffers + 1))
        #expect(note.contains("shared_buffers (128 MB)") && note.contains("(256 MB)"), "\(note)")
        let large = try #require(PostgresStore.memoryNote(sharedBuffers: buffers, items: 3_113_851_289))
        #expect(large.contains("(2.9 GB)") && large.contains("a quarter of the machine's memory"), "\(large)")
    }

    /// The sizes the note is made from are the server's: its shared_buffers setting, and the
    /// items' bytes, which grow with an import.
    @Test func theSizesAreTheDatabasesOwn() throws {
        let library = try Library(.postgres)
        let database = OrderDataTests.database(library)
        let store = try #require(try library.catalog().store as? PostgresStore)
        let before = try store.memorySizes()
        let setting = try TestPostgres.psql(database, "SELECT pg_size_bytes(current_setting('shared_buffers'))")
        #expect(before.sharedBuffers == Int64(setting.trimmingCharacters(in: .whitespacesAndNewlines)))
        _ = try library.catalog().importItems(PagerTests.importRows(2_000))
        let after = try store.memorySizes()
        #expect(after.items > before.items, "\(before.items) bytes, then \(after.items)")
        let table = try TestPostgres.psql(database, "SELECT pg_table_size('items') + pg_indexes_size('items')")
        #expect(after.items == Int64(table.trimmingCharacters(in: .whitespacesAndNewlines)))
        // A test database of a few thousand items is far inside any server's buffers.
        #expect(try store.servingNotes() == [])
    }

    @Test func sqliteHasNothingToSay() throws {
        let library = try Library(.sqlite)
        _ = try library.catalog().importItems(PagerTests.importRows(10))
        #expect(try library.catalog().store.servingNotes() == [])
    }
}
