import CatalogModel
import Foundation
import Synchronization
import Testing

@Suite struct HandoffTests {
    final class Payload: Sendable {}

    @Test func itemsArriveInOrder_andATakenItemIsNotKeptWhileLaterOnesWait() {
        let handoff = Handoff<Payload>(capacity: 3)
        weak var first: Payload?
        let later: [Payload]
        do {
            let items = [Payload(), Payload(), Payload()]
            first = items[0]
            later = Array(items.dropFirst())
            for item in items { #expect(handoff.put(item)) }
            #expect(handoff.take() === items[0])
        }
        // The consumer let go of the first item: nothing else may hold it (an import's batch
        // kept alive here would keep its rows in memory).
        #expect(first == nil)
        #expect(handoff.take() === later[0], "the second item put is the second taken")
        let fourth = Payload()
        #expect(handoff.put(fourth), "room again after a take")
        #expect(handoff.take() === later[1], "the third item put is the third taken")
        #expect(handoff.take() === fourth, "the item put last is taken last")
    }

    @Test func aProducerWaitsForRoom_andStopsWhenTheConsumerCancels() {
        let handoff = Handoff<Int>(capacity: 2)
        let stopped = DispatchSemaphore(value: 0)
        let count = Mutex(0)
        Thread.detachNewThread {
            while count.withLock({ $0 }) < 1_000, handoff.put(count.withLock({ $0 })) { count.withLock { $0 += 1 } }
            stopped.signal()
        }
        for expected in 0..<10 { #expect(handoff.take() == expected) }
        handoff.cancel()
        stopped.wait()
        // Ten taken, at most two waiting and one refused: the producer never ran further ahead.
        #expect(count.withLock { $0 } <= 12)
    }
}
