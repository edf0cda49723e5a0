@testable import CatalogKit
import CatalogModel
import Foundation
import Testing

/// A scan's writer takes several batches ahead, in order; once one fails, those queued after
/// it are not written, and the scan gets the first error.
@Suite struct BatchWriterTests {
    static func changes(_ names: ClosedRange<Int>, under root: String) -> [FileChange] {
        names.map { index in
            FileChange(path: Data("\(root)/\(index).txt".utf8), stat: FileStat(device: 1, inode: Int64(index), size: 10, mtimeNanoseconds: 1),
                       fingerprint: nil, outcome: .unsupported, itemID: nil)
        }
    }

    @Test(arguments: Backend.allCases) func batchesAreWrittenInOrder_andNoneAfterOneThatFails(_ backend: Backend) throws {
        let library = try Library(backend)
        let catalog = try library.catalog()
        let root = library.root.path
        let rootID = try catalog.store.rootID(for: Data(root.utf8))
        let writer = BatchWriter(store: catalog.store, inFlight: 4)
        try writer.submit(Self.changes(1...3, under: root), rootID: rootID)
        try writer.submit(Self.changes(4...5, under: root), rootID: rootID)
        let counts = try writer.drain()
        #expect(counts.added == 0 && writer.committedFiles == 5)
        #expect(try catalog.store.knownFiles(under: Data((root + "/").utf8)).count == 5)

        // A batch whose root does not exist breaks the files' reference to their root: it fails,
        // and the batches queued behind it (up to three, submitted before it is written) are not written.
        let missingRoot = rootID + 1_000
        try writer.submit(Self.changes(6...7, under: root), rootID: missingRoot)
        var refused: StoreError?
        for batch in [8...9, 10...11, 12...13] {
            do { try writer.submit(Self.changes(batch, under: root), rootID: rootID) } catch { refused = error; break }
        }
        #expect(throws: StoreError.self) { try writer.drain() }
        #expect(writer.committedFiles == 5, "\(String(describing: refused))")
        #expect(try catalog.store.knownFiles(under: Data((root + "/").utf8)).count == 5)
    }
}
