import CatalogModel
import Foundation
import Testing

@Suite struct SleepingLockTests {
    struct Refused: Error {}

    @Test func threadsThatTakeTurnsLoseNoUpdate_andAThrowingBodyLetsTheLockGo() throws {
        // A read-modify-write with a pause in it: without the lock, threads would overwrite one
        // another's updates.
        let lock = SleepingLock((count: 0, inside: 0, mostInside: 0))
        let threads = 8, rounds = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for round in 0..<rounds {
                lock.withLock { state in
                    state.inside += 1
                    state.mostInside = max(state.mostInside, state.inside)
                    let count = state.count
                    if round % 100 == 0 { sched_yield() }
                    state.count = count + 1
                    state.inside -= 1
                }
            }
        }
        let state = lock.withLock { $0 }
        #expect(state.count == threads * rounds)
        #expect(state.mostInside == 1, "one body at a time")

        #expect(throws: Refused.self) { try lock.withLock { (_) throws(Refused) in throw Refused() } }
        // Taken again on the same thread: a lock left held would hang here.
        #expect(lock.withLock { $0.count } == threads * rounds)
    }
}
