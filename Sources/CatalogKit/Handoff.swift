import Foundation

/// Items from a producer thread to a consumer, in order, at most `capacity` waiting: the
/// producer runs ahead of the consumer by that much and no more. The import's parser hands
/// rows to the writer through one; the scan's walk hands folders' files to the scanner.
final class Handoff<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var first = 0
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Waits for room; false if the consumer stopped (nothing more is taken).
    @discardableResult
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - first >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Waits for the next item.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.count == first { condition.wait() }
        let item = items[first]
        first += 1
        if first == items.count || first >= 1024 { // drop what was taken, now and then, not per item
            items.removeFirst(first)
            first = 0
        }
        condition.broadcast()
        return item
    }

    /// Stops the producer at its next `put`, and drops what waits.
    func cancel() {
        condition.lock()
        cancelled = true
        items = []
        first = 0
        condition.broadcast()
        condition.unlock()
    }
}
