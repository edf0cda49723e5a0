import CatalogModel
@testable import CatalogStorePostgres
import Foundation
import Synchronization
import Testing

/// Pages that miss at the same time share the keys' statement: those that wait for a free place
/// go together, each gets its own items' keys, and an error reaches every read of its statement.
@Suite struct KeyReadBatchesTests {
    struct Refused: Error {}

    /// The keys a statement for `ids` gives: each id's key names it.
    static func row(_ ids: [Int64]) -> StoredWindowKeys.Row {
        StoredWindowKeys.Row(generation: 7, keys: Dictionary(uniqueKeysWithValues: ids.map { ($0, ItemKey(key: Data("item-\($0)".utf8), file: nil)) }))
    }

    static func statement(_ ids: [Int64], layout: Int64 = 1) -> StoredWindowKeys {
        StoredWindowKeys(ids: ids, configuration: "waterfall width=375.0 cols=2", layoutID: layout)
    }

    /// Runs `body` on a thread of its own (reads block their thread while they wait: on a shared
    /// pool they would wait for threads to be added).
    static func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { body(); group.leave() }.start()
    }

    /// Waits (polling, up to 30 s) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(30)
        while !condition() && Date() < deadline { usleep(1_000) }
    }

    @Test func readsThatWaitGoTogether_perLayout_andEachGetsItsKeys_orTheErrorOfItsStatement() throws {
        let batches = KeyReadBatches(inFlight: 1)
        let sent = Mutex<[[Int64]]>([])
        let firstInside = DispatchSemaphore(value: 0), letFirstGo = DispatchSemaphore(value: 0)
        let answers = Mutex<[String: Result<Set<Int64>, any Error>]>([:])
        let group = DispatchGroup()

        func start(_ name: String, _ statement: StoredWindowKeys, send: @escaping @Sendable (StoredWindowKeys) throws -> StoredWindowKeys.Row) {
            Self.spawn(group) {
                let result = Result<Set<Int64>, any Error> {
                    let row = try batches.read(statement, send: send)
                    // Only what it asked for is looked up by the caller; the row has it all.
                    return Set(statement.ids.filter { row.keys[$0]?.key == Data("item-\($0)".utf8) })
                }
                answers.withLock { $0[name] = result }
            }
        }
        let record: @Sendable (StoredWindowKeys) throws -> StoredWindowKeys.Row = { statement in
            sent.withLock { $0.append(statement.ids) }
            if statement.ids.contains(21) { throw Refused() } // the statement of b and c fails
            return Self.row(statement.ids)
        }
        // a takes the only place and holds it while b, c (same layout) and d (another) queue up.
        start("a", Self.statement([1, 2])) { statement in
            firstInside.signal()
            letFirstGo.wait()
            return try record(statement)
        }
        firstInside.wait()
        start("b", Self.statement([11, 21]), send: record)
        Self.waitUntil { batches.waiting == 1 }
        start("c", Self.statement([31]), send: record)
        Self.waitUntil { batches.waiting == 2 }
        start("d", Self.statement([41, 42], layout: 2), send: record)
        Self.waitUntil { batches.waiting == 3 }
        #expect(sent.withLock { $0 }.isEmpty, "nothing sent while a holds the place")
        letFirstGo.signal()
        group.wait()

        // a alone; then b with c (sent by b, the first waiting); then d, of another layout.
        #expect(sent.withLock { $0 } == [[1, 2], [11, 21, 31], [41, 42]])
        let answered = answers.withLock { $0 }
        #expect(try answered["a"]?.get() == [1, 2])
        #expect(try answered["d"]?.get() == [41, 42])
        for name in ["b", "c"] {
            #expect(throws: Refused.self, "\(name) shares the failed statement") { try answered[name]?.get() }
        }
        #expect(batches.statementsSent.load(ordering: .relaxed) == 3)
        #expect(batches.readsAnswered.load(ordering: .relaxed) == 4)
        #expect(batches.waiting == 0)

        // The place is free again: a read alone goes at once, on its own connection.
        let alone = try batches.read(Self.statement([5])) { Self.row($0.ids) }
        #expect(alone.keys[5]?.key == Data("item-5".utf8))
    }

    @Test func aStatementCarriesAtMostTheLimitOfItems_theRestGoNext() throws {
        let batches = KeyReadBatches(inFlight: 1)
        let sent = Mutex<[Int]>([])
        let inside = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let half = KeyReadBatches.maximumItems / 2 + 1
        Self.spawn(group) {
            _ = try? batches.read(Self.statement([0])) { statement in
                inside.signal()
                go.wait()
                sent.withLock { $0.append(statement.ids.count) }
                return Self.row(statement.ids)
            }
        }
        inside.wait()
        for reader in 1...3 {
            let ids = (0..<half).map { Int64(reader * 100_000 + $0) }
            Self.spawn(group) {
                let row = try? batches.read(Self.statement(ids)) { statement in
                    sent.withLock { $0.append(statement.ids.count) }
                    return Self.row(statement.ids)
                }
                #expect(row.map { ids.allSatisfy($0.keys.keys.contains) } == true)
            }
            Self.waitUntil { batches.waiting == reader }
        }
        go.signal()
        group.wait()
        // Two reads of just over half the limit do not fit in one statement.
        #expect(sent.withLock { $0 } == [1, half, half, half])
    }
}
