@testable import CatalogKit
import CatalogModel
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
        try writer.submit(Self.changes(1...3, under: root), rootID: rootID)
        try writer.submit(Self.changes(4...5, under: root, imageWidth: 20), rootID: rootID)
        let counts = try writer.drain()
        #expect(counts.added == 2 && writer.committedFiles == 5)
        #expect(try catalog.store.knownFiles(under: Data((root + "/").utf8)).count == 5)

        // A batch with an image 0 pixels wide breaks the items' CHECK: it fails, and the batches
        // queued behind it (up to three, submitted before it is written) are not written.
        try writer.submit(Self.changes(6...7, under: root, imageWidth: 0), rootID: rootID)
        var refused: StoreError?
        for batch in [8...9, 10...11, 12...13] {
            do { try writer.submit(Self.changes(batch, under: root), rootID: rootID) } catch { refused = error; break }
        }
        #expect(throws: StoreError.self) { try writer.drain() }
        #expect(writer.committedFiles == 5, "\(String(describing: refused))")
        #expect(try catalog.store.knownFiles(under: Data((root + "/").utf8)).count == 5)
    }
}
