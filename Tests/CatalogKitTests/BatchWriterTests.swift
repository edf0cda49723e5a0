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
}
