import CatalogModel
import Dispatch
import Foundation

/// Writes a scan's batches on a background queue, one batch in flight at a time, so SQLite
/// works while the next folders are walked and probed. Memory stays bounded: `submit` waits
/// for the previous batch before handing over the next.
final class BatchWriter: @unchecked Sendable {
    private let store: any CatalogBackend
    private let queue = DispatchQueue(label: "catalog.scan.writer")
    private let slot = DispatchSemaphore(value: 1)
    private let lock = NSLock()
    private var counts = (added: 0, updated: 0, removed: 0)
    private var failure: StoreError?
    private var committed = 0

    init(store: any CatalogBackend) {
        self.store = store
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
            let outcome = Result { () throws(StoreError) in try store.apply(changes, rootID: rootID) }
            lock.withLock {
                switch outcome {
                case .success(let result):
                    committed += changes.count
                    counts.added += result.added
                    counts.updated += result.updated
                    counts.removed += result.removed
                case .failure(let error):
                    failure = failure ?? error
                }
            }
        }
    }

    /// File changes written so far.
    var committedFiles: Int { lock.withLock { committed } }

    /// Waits for every queued batch; returns what they did, or throws the first error.
    func drain() throws(StoreError) -> (added: Int, updated: Int, removed: Int) {
        slot.wait()
        slot.signal()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        let done = counts
        counts = (0, 0, 0)
        return done
    }
}
