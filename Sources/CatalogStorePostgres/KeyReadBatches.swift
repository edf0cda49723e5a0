import CatalogModel
import Foundation
import Synchronization

/// The keys' statements of pages that miss at the same time, sent as one: a server under load
/// reads a page's few dozen keys for many clients at once, and each statement has a fixed cost
/// in the database (tens of microseconds) and in this process (a round trip through PostgresNIO)
/// whatever the number of ids it carries.
///
/// At most `inFlight` statements run at a time (as many as cores, so that the database can use
/// them). A read that finds them all running waits; when one ends, the reads waiting by then go
/// as the next statement, sent by the first of them on its own connection. A read that finds
/// one free goes at once: alone, nothing waits.
final class KeyReadBatches: Sendable {
    /// One read: its statement, then what it gets back.
    private final class Read: Sendable {
        let statement: StoredWindowKeys
        let done = DispatchSemaphore(value: 0)
        /// Set before `done` is signalled: the result, or that this read is to send the next
        /// statement.
        let outcome = Mutex<Outcome?>(nil)

        enum Outcome {
            case read(Result<StoredWindowKeys.Row, any Error>)
            case send
        }

        init(_ statement: StoredWindowKeys) {
            self.statement = statement
        }

        func same(_ other: Read) -> Bool {
            statement.configuration == other.statement.configuration && statement.layoutID == other.statement.layoutID
                && statement.order == other.statement.order
        }
    }

    private struct State {
        var running = 0
        var waiting: [Read] = []
    }

    /// Taken by every page that misses, from the read threads: a `SleepingLock`, as the page cache's.
    private let state = SleepingLock(State())
    let inFlight: Int
    /// Items a statement reads at most (`StoredWindowKeys.itemsRead`): more waiting go in the
    /// statement after it.
    static let maximumItems = 4_096
    /// Statements sent, and reads they answered (for tests and measurements).
    let statementsSent = Atomic<Int>(0)
    let readsAnswered = Atomic<Int>(0)
    /// Reads waiting for a statement (for tests).
    var waiting: Int { state.withLock { $0.waiting.count } }

    init(inFlight: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.inFlight = max(1, inFlight)
    }

    /// The row of `statement`, read by `send` (on the caller's connection) with the statements of
    /// other reads waiting for the same layout, or by another read's `send` with this one's.
    func read(_ statement: StoredWindowKeys,
              send: (StoredWindowKeys) throws -> StoredWindowKeys.Row) throws -> StoredWindowKeys.Row {
        let read = Read(statement)
        let sends = state.withLock { state in
            if state.running < inFlight {
                state.running += 1
                return true
            }
            state.waiting.append(read)
            return false
        }
        if !sends {
            read.done.wait()
            switch read.outcome.withLock({ $0 })! {
            case .read(let result): return try result.get()
            case .send: break // it sends the next statement, with its own read in it
            }
        }
        // This read sends: with the reads of the same layout waiting by now, up to the limit.
        let batch = state.withLock { state -> [Read] in
            var batch: [Read] = [], left: [Read] = [], items = statement.itemsRead
            for other in state.waiting {
                if other.same(read) && items + other.statement.itemsRead <= Self.maximumItems {
                    batch.append(other)
                    items += other.statement.itemsRead
                } else {
                    left.append(other)
                }
            }
            state.waiting = left
            return batch
        }
        var combined = statement
        for other in batch {
            combined.ids += other.statement.ids
            combined.ranges += other.statement.ranges
        }
        let result = Result { try send(combined) }
        statementsSent.add(1, ordering: .relaxed)
        readsAnswered.add(1 + batch.count, ordering: .relaxed)
        // Every read of the statement gets its whole row: each picks its own ids' keys from it.
        for other in batch {
            other.outcome.withLock { $0 = .read(result) }
            other.done.signal()
        }
        // The next statement is sent by the first read waiting, if any.
        let next = state.withLock { state -> Read? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        if let next {
            next.outcome.withLock { $0 = .send }
            next.done.signal()
        }
        return try result.get()
    }
}
