import CatalogModel
import Foundation
import PostgresNIO
import Synchronization

/// The PostgreSQL store's change stamp: one connection that LISTENs on `catalog_changes`, on
/// which every write transaction NOTIFYs at its commit, whoever wrote it (a scanner on another
/// machine, another server). A server trusts what it keeps in memory while the stamp stays the
/// same, so a page that is cached does not go to the database at all.
///
/// The stamp is the connection's epoch and the notifications it heard. While the connection
/// is down (the server stopped, restarted, or cannot be reached) there is no stamp, and every
/// read asks the database; the listener connects again by itself, every half second, and a new
/// connection is a new epoch (what was sent meanwhile was not heard). Each notification carries
/// the generation committed; with reads from a replica, there is no stamp until a read has
/// seen that generation, however far the replica trails; nor while the replica does not answer
/// the check the heartbeat makes of it.
final class PostgresChangeListener: Sendable {
    static let channel = "catalog_changes"
    /// The SQL every write transaction runs before it commits: the generation it commits is the
    /// payload.
    static let notify = "SELECT pg_notify('\(channel)', generation::text) FROM catalog"
    static let retryDelay: Duration = .milliseconds(500)

    private struct State {
        var connected = false
        var epoch: Int64 = 0
        var heard: Int64 = 0
        /// The newest generation a notification carried, and the newest this store has read
        /// (from a replica with `--read-db`, which may trail the notifications).
        var newestHeard: Int64 = 0
        var newestRead: Int64 = 0
        /// When the epoch began or a notification was last heard (nanoseconds since 1970).
        var lastChange: Int64 = 0
        /// With `--read-db`: whether the replica answered the last heartbeat's check.
        var replicaAnswers = true
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let state = Mutex(State())
    private let connections: PostgresConnections
    /// Where reads go, when that is not `connections` (a replica).
    private let replica: PostgresConnections?

    init(connections: PostgresConnections, replica: PostgresConnections? = nil) {
        self.connections = connections
        self.replica = replica
    }

    /// Records a generation this store read: until it has read the newest one a notification
    /// carried, there is no stamp (a replica is still behind the primary's notifications).
    func read(generation: Int64) {
        state.withLock { state in state.newestRead = max(state.newestRead, generation) }
    }

    /// The stamp, or nil while the listener is not connected, or while the reads trail what it
    /// heard; the first call starts it.
    func stamp() -> (stamp: [Int64], lastChange: Int64)? {
        state.withLock { state in
            start(&state)
            guard state.connected, state.replicaAnswers, state.newestRead >= state.newestHeard else { return nil }
            return ([state.epoch, state.heard], state.lastChange)
        }
    }

    /// The listening connection's epoch, or nil while it is not connected; the first call starts
    /// it. A new epoch may be another database behind the same URL (dropped and made again,
    /// restored, failed over to): what was kept of the old one's layouts must go.
    func epoch() -> Int64? {
        state.withLock { state in
            start(&state)
            return state.connected ? state.epoch : nil
        }
    }

    /// The epoch as `epoch()` gives it, without starting the listener; -1 while it was never
    /// started (a command that reads once: the database it reads stays the one it opened).
    func epochIfListening() -> Int64? {
        state.withLock { state in
            state.task == nil && !state.stopped ? -1 : state.connected ? state.epoch : nil
        }
    }

    private func start(_ state: inout State) {
        guard state.task == nil && !state.stopped else { return }
        // A thread of its own, not Swift's shared pool, whose few threads a synchronous
        // caller may be holding while it waits for what the listener would tell it.
        let executor = ThreadExecutor(name: "catalog.postgres.listen")
        state.task = Task(executorPreference: executor) { [self] in
            await listen(on: executor)
            executor.stop() // its thread ends once this last job has run
        }
    }

    /// Stops listening (the store is going away).
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.task?.cancel() // the task stops its executor as it ends
            state.task = nil
        }
    }

    /// Listens, and beats beside it, on the listener's own thread: the shared pool's few threads
    /// may all be held by synchronous callers.
    private func listen(on executor: ThreadExecutor) async {
        while !Task.isCancelled {
            do {
                let connection = try await connections.connect()
                let heartbeat = Task(executorPreference: executor) { await Self.beat(connection) }
                let replicaCheck = replica.map { replica in Task(executorPreference: executor) { [self] in await check(replica) } }
                defer {
                    heartbeat.cancel()
                    replicaCheck?.cancel()
                }
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        mark { state in
                            state.connected = true
                            state.epoch += 1
                        }
                        for try await notification in notifications {
                            mark { state in
                                state.heard += 1
                                state.newestHeard = max(state.newestHeard, Int64(notification.payload) ?? 0)
                            }
                        }
                    }
                } catch {}
                mark { state in state.connected = false }
                // The database may have stopped answering without a word (the heartbeat closed
                // the connection): the callers waiting on it longer than a heartbeat get their
                // error now, and no idle connection is handed out again.
                // Unless a new connection answers: only the listener's connection was lost.
                if !Task.isCancelled, await !Self.answers(connections) {
                    connections.closeStuck(waitingAtLeast: .seconds(Self.heartbeatTimeout.nanoseconds / 1_000_000_000))
                }
                try? await connection.close()
                heartbeat.cancel()
                replicaCheck?.cancel()
                _ = await (heartbeat.value, replicaCheck?.value) // before the thread may end
            } catch {
                mark { state in state.connected = false }
            }
            try? await Task.sleep(for: Self.retryDelay)
        }
    }

    /// Every few seconds a `SELECT 1` on the listening connection, which is closed if the answer
    /// does not come in time: a connection a network dropped without a word (no reset, as a NAT
    /// or a partition does) ends, and with it the stamp, instead of vouching for stale pages.
    private static func beat(_ connection: PostgresConnection) async {
        while !Task.isCancelled, !connection.isClosed {
            do { try await Task.sleep(for: heartbeatInterval) } catch { return }
            let giveUp = connection.eventLoop.scheduleTask(in: heartbeatTimeout) { _ = connection.close() as EventLoopFuture<Void> }
            _ = try? await connection.query("SELECT 1", logger: PostgresConnections.logger).get()
            giveUp.cancel()
        }
    }

    /// With a replica, as often, a `SELECT 1` there on a new connection: while it fails there is
    /// no stamp, so pages go to the replica and fail with 503, and so does /api/health, which a
    /// load balancer reads, instead of answering 200 from memory.
    private func check(_ replica: PostgresConnections) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: Self.heartbeatInterval) } catch { return }
            let answers = await Self.answers(replica)
            guard !Task.isCancelled else { return }
            if state.withLock({ $0.replicaAnswers }) != answers { mark { state in state.replicaAnswers = answers } }
        }
    }

    /// Whether a new connection to `connections` answers a `SELECT 1`.
    private static func answers(_ connections: PostgresConnections) async -> Bool {
        guard let connection = try? await connections.connect() else { return false }
        let giveUp = connection.eventLoop.scheduleTask(in: heartbeatTimeout) { _ = connection.close() as EventLoopFuture<Void> }
        let answered = (try? await connection.query("SELECT 1", logger: PostgresConnections.logger).get()) != nil
        giveUp.cancel()
        try? await connection.close()
        return answered
    }

    static let heartbeatInterval: Duration = .seconds(5)
    static let heartbeatTimeout: TimeAmount = .seconds(5)

    private func mark(_ change: (inout State) -> Void) {
        let now = WallClock.nanoseconds()
        state.withLock { state in
            change(&state)
            state.lastChange = now
        }
    }
}
