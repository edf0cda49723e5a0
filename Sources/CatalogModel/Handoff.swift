import Dispatch
import Foundation

/// Items from a producer thread to a consumer, in order, at most `capacity` waiting: the
/// producer runs ahead of the consumer by that much and no more. The import's parser hands
/// rows to the writer through one; the scan's walk hands folders' files to the scanner; the
/// PostgreSQL import hands encoded rows to its COPY.
package final class Handoff<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = [] // at most `capacity`: taking from the front moves that many
    private var cancelled = false
    private let capacity: Int
    /// Signalled when the producer started by `startProducer` returns.
    private let produced = DispatchSemaphore(value: 0)

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// Waits for room; false if the consumer stopped (nothing more is taken).
    @discardableResult
    package func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Waits for the next item.
    package func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst() // released as soon as the consumer is done with it
        condition.broadcast()
        return item
    }

    /// Runs `produce` on a thread of its own, putting into this handoff; `stop()` then waits
    /// for it to return. At most one producer per handoff.
    package func startProducer(_ produce: @escaping @Sendable (Handoff<Item>) -> Void) {
        Thread.detachNewThread { [self] in
            defer { produced.signal() }
            produce(self)
        }
    }

    /// Stops the producer started by `startProducer` at its next `put`, and waits until it has
    /// returned (and so released whatever it held).
    package func stop() {
        cancel()
        produced.wait()
    }

    /// Stops the producer at its next `put`, and drops what waits.
    package func cancel() {
        condition.lock()
        cancelled = true
        items = []
        condition.broadcast()
        condition.unlock()
    }
}
