@testable import CatalogKit
import CatalogModel
import CatalogStore
import GRDB
import Foundation
import Testing

/// A scan's writer takes several batches ahead, in order; once one fails, those queued after
/// it are not written, and the scan gets the first error.
@Suite struct BatchWriterTests {
    /// Unsupported files, or images `width` pixels wide (0 breaks the items' CHECK on both stores).
    static func changes(_ names: ClosedRange<Int>, under root: String, imageWidth width: Int? = nil) -> [FileChange] {
        names.map { index in
            let outcome: FileOutcome = width.map {
                .image(ImageFacts(format: "png", pixelWidth: $0, pixelHeight: 10, orientation: 1, width: $0, height: 10, bytes: 10,
                                  captureDate: nil, modifiedAt: "2026-01-01T00:00:00Z"))
            } ?? .unsupported
            return FileChange(path: Data("\(root)/\(index).png".utf8), stat: FileStat(device: 1, inode: Int64(index), size: 10, mtimeNanoseconds: 1),
                              fingerprint: nil, outcome: outcome, itemID: nil)
        }
    }

    @Test(arguments: Backend.allCases) func batchesAreWrittenInOrder_andNoneAfterOneThatFails(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let root = library.root.path
        let rootID = try catalog.store.rootID(for: Data(root.utf8))
        let writer = BatchWriter(store: catalog.store, inFlight: 4)
        // In order: files 4 and 5 are written unsupported, then as images; the later batch wins.
        try writer.submit(Self.changes(1...5, under: root), rootID: rootID)
        try writer.submit(Self.changes(4...5, under: root, imageWidth: 20), rootID: rootID)
        let counts = try writer.drain()
        #expect(counts.added == 2 && writer.committedFiles == 7)
        let known = try catalog.store.knownFiles(under: Data((root + "/").utf8))
        #expect(known.count == 5)
        #expect(known.filter { $0.status == 0 && $0.itemID != nil }.map { String(decoding: $0.path, as: UTF8.self) }.sorted()
                == ["\(root)/4.png", "\(root)/5.png"])

        // A batch with an image 0 pixels wide breaks the items' CHECK: it fails, and the batches
        // queued behind it are not written. A large batch goes first, so that the failing one
        // and the two behind it are queued while it is written (were the failure met before a
        // later submit, that submit would throw it, and nothing more would be written either).
        try writer.submit(Self.changes(1_001...21_000, under: root), rootID: rootID)
        try writer.submit(Self.changes(6...7, under: root, imageWidth: 0), rootID: rootID)
        var refused: StoreError?
        for batch in [8...9, 10...11] {
            do { try writer.submit(Self.changes(batch, under: root), rootID: rootID) } catch { refused = error; break }
        }
        #expect(throws: StoreError.self) { try writer.drain() }
        #expect(writer.committedFiles == 7 + 20_000, "\(String(describing: refused))")
        #expect(try catalog.store.knownFiles(under: Data((root + "/").utf8)).count == 5 + 20_000)
        if let store = catalog.store as? SQLiteStore { // the failed batch's transaction turned them back on too
            #expect(try store.write { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 1)
        }
    }

    /// Once `drain` returns, no block of the writer's queue holds the writer (and so the store):
    /// the last one used to signal its slot before it returned, and a scan that ended then let
    /// the process exit with the store held, never closed, an SQLite catalog's committed pages
    /// left in its -wal file (9 first scans of 30 on a busy machine).
    @Test func onceDrainedNoQueuedBlockHoldsTheWriter() throws {
        let library = try Library(.sqlite)
        let catalog = try library.catalog()
        let rootID = try catalog.store.rootID(for: Data(library.root.path.utf8))
        var held = 0
        for _ in 0..<2_000 {
            var writer = BatchWriter(store: catalog.store, inFlight: 4)
            try writer.submit([], rootID: rootID)
            _ = try writer.drain()
            if !isKnownUniquelyReferenced(&writer) { held += 1 }
        }
        #expect(held == 0, "held after drain \(held) times of 2,000")
    }

    /// One batch with every kind of change, a path named twice among them: stored as if one
    /// change at a time, in order (PostgreSQL writes a batch a few statements over all its files).
    @Test(arguments: Backend.allCases) func aBatchOfEveryKindOfChange_aPathTwice_isStoredAsOneChangeAtATime(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let root = library.root.path
        func path(_ name: String) -> Data { Data("\(root)/\(name)".utf8) }
        func image(_ name: String, width: Int, item: Int64? = nil, capture: String? = nil) -> FileChange {
            FileChange(path: path(name), stat: FileStat(device: 1, inode: Int64(name.utf8.first!), size: Int64(width), mtimeNanoseconds: 1),
                       fingerprint: width % 2 == 0 ? Int64(width) : nil,
                       outcome: .image(ImageFacts(format: "png", pixelWidth: width, pixelHeight: 10, orientation: 1, width: width, height: 10,
                                                  bytes: 10, captureDate: capture, modifiedAt: "2026-01-01T00:00:00Z")),
                       itemID: item)
        }
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "\(root)/imported.png", width: 7, height: 7)], importedAt: "2025-01-01T00:00:00Z")
        let rootID = try catalog.store.rootID(for: Data(root.utf8))
        let first = try catalog.store.apply([image("a.png", width: 11), image("b.png", width: 12), image("c.png", width: 13),
                                             FileChange(path: path("u.txt"), stat: FileStat(device: 1, inode: 9, size: 1, mtimeNanoseconds: 1),
                                                        fingerprint: nil, outcome: .unsupported, itemID: nil)], rootID: rootID)
        #expect(first == (3, 0, 0, 0))
        let ids = Dictionary(uniqueKeysWithValues: try catalog.store.items(order: .path, limit: nil, offset: 0).map { ($0.key, $0.id) })
        let (a, b, c) = (ids[path("a.png")]!, ids[path("b.png")]!, ids[path("c.png")]!)

        let second = try catalog.store.apply([
            image("a.png", width: 21, item: a, capture: "2024-05-06T07:08:09"), // its item updated
            FileChange(path: path("b.png"), stat: FileStat(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4), fingerprint: nil,
                       outcome: .failed("broken"), itemID: b), // its item removed
            image("imported.png", width: 22), // refused: an imported item's key
            image("d.png", width: 23), // new
            image("e.png", width: 24, item: c), // c's item, moved here
            image("d.png", width: 25), // d again: the item it made, upserted
        ], rootID: rootID)
        #expect(second == (2, 2, 1, 1))

        let items = Dictionary(uniqueKeysWithValues: try catalog.store.items(order: .path, limit: nil, offset: 0).map { ($0.key, $0) })
        #expect(items.keys.sorted { $0.lexicographicallyPrecedes($1) } == ["a.png", "d.png", "e.png", "imported.png"].map(path))
        #expect((items[path("a.png")]?.id, items[path("a.png")]?.width, items[path("a.png")]?.date) == (a, 21, "2024-05-06T07:08:09"))
        #expect((items[path("e.png")]?.id, items[path("e.png")]?.width) == (c, 24))
        #expect(items[path("d.png")]?.width == 25)
        #expect(items[path("d.png")]!.id > c, "a new item, after the first batch's")
        #expect((items[path("imported.png")]?.isImported, items[path("imported.png")]?.width) == (true, 7))
        let files = Dictionary(uniqueKeysWithValues: try catalog.store.knownFiles(under: Data((root + "/").utf8)).map { ($0.path, $0) })
        #expect((files[path("a.png")]?.itemID, files[path("a.png")]?.fingerprint) == (a, nil))
        #expect((files[path("b.png")]?.status, files[path("b.png")]?.itemID) == (2, nil))
        #expect((files[path("imported.png")]?.status, files[path("imported.png")]?.itemID) == (2, nil))
        #expect((files[path("d.png")]?.itemID, files[path("d.png")]?.stat.size) == (items[path("d.png")]?.id, 25))
        #expect((files[path("e.png")]?.itemID, files[path("e.png")]?.fingerprint) == (c, 24))
        #expect((files[path("u.txt")]?.status, files[path("u.txt")]?.itemID) == (1, nil))
        let errors = Dictionary(uniqueKeysWithValues: try catalog.store.fileErrors().map { ($0.path, $0.reason) })
        #expect(errors[path("b.png")] == "broken")
        #expect(errors[path("imported.png")] == FileOutcome.importedKeyReason)
        // A batch whose only image is refused changes no item, so the generation stays: a
        // client that follows it is not sent to fetch an empty change set.
        let generation = try catalog.store.generation()
        #expect(try catalog.store.apply([image("imported.png", width: 26)], rootID: rootID) == (0, 0, 0, 1))
        #expect(try catalog.store.generation() == generation)
    }

    /// One batch of moves, a file moved twice among them, one onto an imported item's key, one
    /// changed too: moved as one at a time, in order, at one new generation.
    @Test(arguments: Backend.allCases) func aBatchOfMoves_aFileMovedTwice_isMovedAsOneAtATime(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let root = library.root.path
        func path(_ name: String) -> Data { Data("\(root)/\(name)".utf8) }
        func facts(_ width: Int) -> ImageFacts {
            ImageFacts(format: "png", pixelWidth: width, pixelHeight: 10, orientation: 1, width: width, height: 10, bytes: 10,
                       captureDate: nil, modifiedAt: "2026-01-01T00:00:00Z")
        }
        _ = try catalog.store.importItems([ImportRow(line: 2, key: "\(root)/imported.png", width: 7, height: 7)], importedAt: "2025-01-01T00:00:00Z")
        let rootID = try catalog.store.rootID(for: Data(root.utf8))
        _ = try catalog.store.apply(["a.png", "b.png", "c.png"].enumerated().map { index, name in
            FileChange(path: path(name), stat: FileStat(device: 1, inode: Int64(index), size: 10, mtimeNanoseconds: 1), fingerprint: nil,
                       outcome: .image(facts(11 + index)), itemID: nil)
        }, rootID: rootID)
        let ids = Dictionary(uniqueKeysWithValues: try catalog.store.items(order: .path, limit: nil, offset: 0).map { ($0.key, $0.id) })
        let (a, b, c) = (ids[path("a.png")]!, ids[path("b.png")]!, ids[path("c.png")]!)
        let generation = try catalog.store.generation()

        let moved = try catalog.store.move([
            FileMove(from: path("a.png"), to: path("a2.png"), itemID: a),
            FileMove(from: path("a2.png"), to: path("a3.png"), itemID: a), // again: a run of its own
            FileMove(from: path("b.png"), to: path("imported.png"), itemID: b), // refused: its item goes
            FileMove(from: path("c.png"), to: path("c2.png"), itemID: c, stat: FileStat(device: 1, inode: 2, size: 5, mtimeNanoseconds: 9),
                     fingerprint: 7, facts: facts(99)),
        ])
        #expect(moved == [true, true, false, true])
        #expect(try catalog.store.generation() == generation + 1)
        let items = Dictionary(uniqueKeysWithValues: try catalog.store.items(order: .path, limit: nil, offset: 0).map { ($0.key, $0) })
        #expect(items.keys.sorted { $0.lexicographicallyPrecedes($1) } == ["a3.png", "c2.png", "imported.png"].map(path))
        #expect(items[path("a3.png")]?.id == a)
        #expect((items[path("c2.png")]?.id, items[path("c2.png")]?.width) == (c, 99))
        #expect((items[path("imported.png")]?.isImported, items[path("imported.png")]?.width) == (true, 7))
        let files = Dictionary(uniqueKeysWithValues: try catalog.store.knownFiles(under: Data((root + "/").utf8)).map { ($0.path, $0) })
        #expect(files.keys.sorted { $0.lexicographicallyPrecedes($1) } == ["a3.png", "c2.png", "imported.png"].map(path))
        #expect(files[path("a3.png")]?.itemID == a)
        #expect((files[path("imported.png")]?.status, files[path("imported.png")]?.itemID) == (2, nil))
        #expect((files[path("c2.png")]?.itemID, files[path("c2.png")]?.stat, files[path("c2.png")]?.fingerprint)
                == (c, FileStat(device: 1, inode: 2, size: 5, mtimeNanoseconds: 9), 7))
    }
}
