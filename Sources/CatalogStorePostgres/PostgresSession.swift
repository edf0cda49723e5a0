import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// A connection and the query waited for on it. PostgresNIO never answers a query written to a
/// connection that has already closed (the write fails, and nothing fails the query's promise),
/// so a rollback after the server went away would wait forever: one watcher per connection,
/// registered once on its end, fails the query in flight instead.
final class WatchedConnection: Sendable {
    let connection: PostgresConnection
    private let inFlight = Mutex<(@Sendable () -> Void)?>(nil)
    private let sentAt = Mutex<ContinuousClock.Instant?>(nil)
    private let deadlineValue = Mutex<TimeAmount?>(nil)

    /// How long each query may wait for its answer before the connection is closed (which fails
    /// it), or nil for as long as it takes.
    var deadline: TimeAmount? {
        get { deadlineValue.withLock { $0 } }
        set { deadlineValue.withLock { $0 = newValue } }
    }

    /// When the query waited for now was sent, or nil when none is.
    var waitingSince: ContinuousClock.Instant? { sentAt.withLock { $0 } }

    private let givenUpValue = Atomic<Bool>(false)
    /// Whether this end closed the connection because the database did not answer in time (the
    /// query's deadline, `PostgresConnections.closeStuck`): a read failed so is not tried again
    /// on a new connection, which a database that does not answer does not give either, and
    /// which would hold the read past the deadline.
    var givenUp: Bool { givenUpValue.load(ordering: .relaxed) }

    /// Closes the connection as one the database did not answer on in time (`givenUp`).
    func giveUp() {
        givenUpValue.store(true, ordering: .relaxed)
        _ = connection.close() as EventLoopFuture<Void>
    }

    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [weak self] _ in self?.closed() }
    }

    private func closed() {
        inFlight.withLock { $0 }?()
    }

    /// The answer to `future`, a query on this connection, or `ConnectionGone` when the
    /// connection ends first.
    func answer<T>(_ future: EventLoopFuture<T>, bounded: Bool = true) throws -> T {
        try waiting(for: future, bounded: bounded)()
    }

    /// The same, waited for when the returned closure is called: the watcher is set now, so the
    /// caller can work while the query runs. One query at a time: wait for one before the next
    /// (a query given up on, its caller having thrown, may lose its watcher to the next one,
    /// such as the ROLLBACK; nothing waits for it then).
    /// `bounded`: whether the connection's `deadline` applies (not to a query whose rows stream
    /// for as long as there are rows; the listener's heartbeat still ends it when the database
    /// stops answering).
    func waiting<T>(for future: EventLoopFuture<T>, bounded: Bool = true) -> () throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        inFlight.withLock { $0 = { promise.fail(ConnectionGone()) } } // ignored once answered
        let sent = ContinuousClock.now
        sentAt.withLock { $0 = sent }
        // Answered is no longer waiting, though the caller may look at the answer later.
        future.whenComplete { [weak self] _ in self?.sentAt.withLock { if $0 == sent { $0 = nil } } }
        if connection.isClosed { promise.fail(ConnectionGone()) } // ended before the watcher was set
        if bounded, let deadline {
            let giveUp = future.eventLoop.scheduleTask(in: deadline) { [weak self] in self?.giveUp() }
            future.whenComplete { _ in giveUp.cancel() }
        }
        future.cascade(to: promise)
        return { [self] in
            defer {
                inFlight.withLock { $0 = nil }
                sentAt.withLock { $0 = nil }
            }
            return try promise.futureResult.wait()
        }
    }
}

/// One connection, its queries waited for.
struct PostgresSession {
    let watched: WatchedConnection
    var connection: PostgresConnection { watched.connection }

    init(_ watched: WatchedConnection) {
        self.watched = watched
    }

    /// Every row of `query`.
    @discardableResult
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try answer(connection.query(query, logger: PostgresConnections.logger)).rows
    }

    /// Every row of a prepared statement: parsed and planned once per connection (PostgresNIO
    /// keeps it by name), then only bound and run. PostgresNIO runs it only from async code, so
    /// a task runs it on the connection's own event loop (`EventLoopExecutor`) and this thread
    /// waits for the task: not a task on Swift's shared pool, whose few threads synchronous
    /// callers like this one may all be holding while they wait, and not a thread of its own,
    /// which the statement and each of its answers would hop to and back from.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) throws -> [Statement.Row] where Statement.Row: Sendable {
        let promise = connection.eventLoop.makePromise(of: [Statement.Row].self)
        Task(executorPreference: EventLoopExecutor(connection.eventLoop)) { [connection] in
            do {
                var rows: [Statement.Row] = []
                for try await row in try await connection.execute(statement, logger: PostgresConnections.logger) { rows.append(row) }
                promise.succeed(rows)
            } catch {
                promise.fail(error)
            }
        }
        do {
            return try answer(promise.futureResult)
        } catch {
            // PostgresNIO remembers a statement it failed to prepare, or believes prepared, on
            // the connection, and answers every later run there with the same failure: this
            // connection is not given back.
            try? connection.close().wait()
            throw error
        }
    }

    /// Sends `query` now; its rows are waited for when the returned closure is called.
    func rowsLater(_ query: PostgresQuery) -> () throws -> [PostgresRow] {
        watched.waiting(for: connection.query(query, logger: PostgresConnections.logger).map(\.rows))
    }

    /// Runs `query`; returns the rows it changed (or returned).
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try answer(connection.query(query, logger: PostgresConnections.logger)).metadata.rows ?? 0
    }

    /// Runs one statement without parameters.
    func script(_ sql: String) throws {
        _ = try answer(connection.simpleQuery(sql))
    }

    private func answer<T>(_ future: EventLoopFuture<T>, bounded: Bool = true) throws -> T {
        try watched.answer(future, bounded: bounded)
    }

    /// Runs a script of several statements (a migration file) as one: PostgresNIO sends every
    /// query as a prepared statement, which holds one command, and PL/pgSQL's EXECUTE runs many.
    func runScript(_ sql: String) throws {
        let (outer, inner) = ("$catalog_do$", "$catalog_script$")
        precondition(!sql.contains(outer) && !sql.contains(inner), "a script may not contain \(outer) or \(inner)")
        try script("DO \(outer) BEGIN EXECUTE \(inner)\(sql)\(inner); END \(outer)")
    }

    /// Calls `body` with each row as it arrives, without holding them all.
    func forEachRow(_ query: PostgresQuery, _ body: @escaping @Sendable (PostgresRow) throws -> Void) throws {
        _ = try answer(connection.query(query, logger: PostgresConnections.logger, body), bounded: false)
    }

    /// The first column of the first row, or nil (no row, or NULL).
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) throws -> T? where T._DecodableType == T {
        guard let row = try rows(query).first else { return nil }
        return try row.decode(T?.self) ?? nil
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try script(begin)
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? script("ROLLBACK")
            throw error
        }
        try script("COMMIT")
        return result
    }
}

/// The connection closed before its query was answered.
struct ConnectionGone: Error, CustomStringConvertible {
    var description: String { "the server closed the connection" }
}

/// A TCP connection to the server could not be made (refused, no route, a name that does
/// not resolve): what PostgresNIO's own bootstrap would fail with as a connection error.
struct CannotConnect: Error {
    let underlying: any Error
}

/// A new connection was not ready within `PostgresConnections.connectTimeout`.
struct ConnectTimeout: Error, CustomStringConvertible {
    var description: String { "the server did not answer within \(PostgresConnections.connectTimeout.nanoseconds / 1_000_000_000) s" }
}

/// Appends rows from the event loop and hands them over once the query is done.
final class RowCollector<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    func take() -> [Element] {
        elements.withLock { elements in defer { elements = [] }; return elements }
    }
}

/// One value a query's rows are folded into on the event loop, taken once the query is done.
final class Accumulator<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    func update(_ body: (inout Value) -> Void) {
        value.withLock { body(&$0) }
    }

    func take() -> Value {
        value.withLock { $0 }
    }
}
