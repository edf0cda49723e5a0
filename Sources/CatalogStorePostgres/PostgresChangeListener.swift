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
/// connection is a new epoch (what was sent meanwhile was not heard).
final class PostgresChangeListener: Sendable {
    static let channel = "catalog_changes"
    /// The SQL every write transaction runs before it commits.
    static let notify = "SELECT pg_notify('\(channel)', '')"
    static let retryDelay: Duration = .milliseconds(500)

    private struct State {
        var connected = false
        var epoch: Int64 = 0
        var heard: Int64 = 0
        /// When the epoch began or a notification was last heard (nanoseconds since 1970).
        var lastChange: Int64 = 0
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let state = Mutex(State())
    private let connections: PostgresConnections
    /// The listener's own thread: not Swift's shared pool, whose few threads a synchronous
    /// caller may be holding while it waits for what the listener would tell it.
    private let executor = ThreadExecutor(name: "catalog.postgres.listen")
    /// Added to `lastChange`: how long after a change a reader keeps asking, for a replica's
    /// lag (a notification comes from the primary; the reads may come from a replica behind it).
    private let allowance: Int64

    init(connections: PostgresConnections, allowance: Duration) {
        self.connections = connections
        self.allowance = allowance.components.seconds * 1_000_000_000 + allowance.components.attoseconds / 1_000_000_000
    }

    /// The stamp, or nil while the listener is not connected; the first call starts it.
    func stamp() -> (stamp: [Int64], lastChange: Int64)? {
        state.withLock { state in
            if state.task == nil && !state.stopped {
                state.task = Task(executorPreference: executor) { [self] in await self.listen() }
            }
            return state.connected ? ([state.epoch, state.heard], state.lastChange + allowance) : nil
        }
    }

    /// Stops listening (the store is going away).
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.task?.cancel()
            state.task = nil
        }
        executor.stop() // its thread ends once the task has

    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                let connection = try await connections.connect()
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        mark { state in
                            state.connected = true
                            state.epoch += 1
                        }
                        for try await _ in notifications {
                            mark { state in state.heard += 1 }
                        }
                    }
                } catch {}
                mark { state in state.connected = false }
                try? await connection.close()
            } catch {
                mark { state in state.connected = false }
            }
            try? await Task.sleep(for: Self.retryDelay)
        }
    }

    private func mark(_ change: (inout State) -> Void) {
        let now = WallClock.nanoseconds()
        state.withLock { state in
            change(&state)
            state.lastChange = now
        }
    }

}
