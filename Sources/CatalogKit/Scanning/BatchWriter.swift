import CatalogModel
import Dispatch
import Foundation

/// Writes a scan's batches on a background queue, in order, so the store works while the next
/// folders are walked and probed. Memory stays bounded: `submit` waits while `inFlight` batches
/// are queued or being written. Up to three may wait behind the one being written: a write that
/// takes longer than usual (an SQLite checkpoint copying the WAL into the database, with its
/// sync) then stops the probes later, if at all. Once a batch fails, those queued after it are
/// not written.
final class BatchWriter: @unchecked Sendable {
    private let store: any CatalogBackend
    private let queue = DispatchQueue(label: "catalog.scan.writer")
    private let slots: Int
    private let slot: DispatchSemaphore
    private let lock = NSLock()
    private var counts = (added: 0, updated: 0, removed: 0, refused: 0)
    private var failure: StoreError?
    private var committed = 0

    /// Batches queued or being written at most: the one being written, and those waiting for it.
    static let inFlight = 4

    init(store: any CatalogBackend, inFlight: Int = BatchWriter.inFlight) {
        self.store = store
        slots = max(1, inFlight)
        slot = DispatchSemaphore(value: slots)
    }

    /// Queues a batch; throws the first error a previous batch met.
    func submit(_ changes: [FileChange], rootID: Int64) throws(StoreError) {
        slot.wait()
        if let failure = lock.withLock({ failure }) {
            slot.signal()
            throw failure
        }
        queue.async { [self] in
            defer { slot.signal() }
            guard lock.withLock({ failure }) == nil else { return } // an earlier batch failed: the scan stops
            let outcome = Result { () throws(StoreError) in try store.apply(changes, rootID: rootID) }
            lock.withLock {
                switch outcome {
                case .success(let result):
                    committed += changes.count
                    counts.added += result.added
                    counts.updated += result.updated
                    counts.removed += result.removed
                    counts.refused += result.refused
                case .failure(let error):
                    failure = failure ?? error
                }
            }
        }
    }

    /// File changes written so far.
    var committedFiles: Int { lock.withLock { committed } }

    /// Waits for every queued batch; returns what they did, or throws the first error.
    func drain() throws(StoreError) -> (added: Int, updated: Int, removed: Int, refused: Int) {
        for _ in 0..<slots { slot.wait() }
        for _ in 0..<slots { slot.signal() }
        // The last block has signalled its slot but may not have returned yet, and it holds the
        // writer, so the store: once this returns, none does. A store still held when the
        // process exits is never closed, and an SQLite catalog's committed pages then stay in
        // its -wal file (a copy of the catalog file alone lacked them).
        queue.sync {}
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        let done = counts
        counts = (0, 0, 0, 0)
        return done
    }
}
