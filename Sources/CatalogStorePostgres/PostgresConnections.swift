import CatalogModel
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Connections to one database for the store's synchronous callers (the seam is synchronous:
/// the command line calls it from its main thread, the server from a thread pool). A call takes
/// an idle connection, or opens one, runs on it and gives it back; one that failed is closed.
/// Futures complete on NIO's event loops and are waited for on the caller's thread, never on
/// an event loop's.
final class PostgresConnections: Sendable {
    let location: PostgresLocation
    private let configuration: PostgresConnection.Configuration
    private let idle = Mutex<[WatchedConnection]>([])
    /// Signalled when a connection is given back (kept idle, or closed): a call waiting for room
    /// on a full database looks again (`openOrWaitForRoom`).
    private let returned = NSCondition()
    /// Calls waiting on `returned` (a missed wake-up costs one 0.1 s wait at most).
    private let waitingForRoom = Atomic<Int>(0)
    /// Connections opened for calls to take turns on (`withSession`), idle or in use, not closed.
    private let sessionConnections = Atomic<Int>(0)
    /// The threads running calls (`withSession`), with how many each runs (nested).
    private let holders = Mutex<[UInt: Int]>([:])
    /// Whether this thread runs a call on a connection already.
    private var holdsSession: Bool {
        let thread = UInt(bitPattern: Int(pthread_self()))
        return holders.withLock { $0[thread] != nil }
    }
    /// When a call waiting for room last tried for a new connection.
    private let roomTried = Mutex<ContinuousClock.Instant>(.now - .seconds(1))
    /// Every connection opened and not closed yet, idle or in use.
    private let opened = Mutex<[ObjectIdentifier: WatchedConnection]>([:])
    private let nextID = Atomic<Int>(1)
    /// Whether a connection was made once: a login refused after that is an outage (`open`).
    private let connectedOnce = Atomic<Bool>(false)
    /// Idle connections kept at most; more are closed when given back.
    static let keptIdle = 8
    /// PostgresNIO logs through swift-log; the store's errors are its only output.
    static let logger = Logger(label: "catalog.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    init(location: PostgresLocation) {
        self.location = location
        var configuration: PostgresConnection.Configuration = switch location.endpoint {
        case .tcp(let host, let port):
            .init(host: host, port: port, username: location.user, password: location.password, database: location.database, tls: .disable)
        case .socket(let path, _):
            .init(unixSocketPath: path, username: location.user, password: location.password, database: location.database)
        }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        self.configuration = configuration
    }

    /// This process's connections' name in `pg_stat_activity` (which every role may read): the
    /// tool, the process and the machine, so that an operator sees who is connected, and a
    /// process tells its own connections from others' (`PostgresStore.removeIfMadeAndUnwritten`).
    static let applicationName: String = {
        let name = "catalog \(getpid()) \(ProcessInfo.processInfo.hostName)"
        return String(decoding: name.utf8.prefix(63), as: UTF8.self) // PostgreSQL keeps 63 bytes
    }()

    /// Opens a connection of its own (a write lease holds one for its advisory lock). A server
    /// that does not answer is `StoreError.unreachable`.
    func open() throws(StoreError) -> WatchedConnection {
        do {
            return try openWatched()
        } catch {
            throw classified(error)
        }
    }

    /// `forSessions`: a connection calls take turns on (`withSession`), counted in
    /// `sessionConnections` until it closes.
    private func openWatched(forSessions: Bool = false) throws -> WatchedConnection {
        let watched = WatchedConnection(try connecting().wait())
        connectedOnce.store(true, ordering: .relaxed)
        let id = ObjectIdentifier(watched)
        opened.withLock { $0[id] = watched }
        if forSessions { sessionConnections.wrappingAdd(1, ordering: .relaxed) }
        watched.connection.closeFuture.whenComplete { [weak self] _ in
            _ = self?.opened.withLock { $0.removeValue(forKey: id) }
            if forSessions { self?.sessionConnections.wrappingSubtract(1, ordering: .relaxed) }
        }
        return watched
    }

    /// A new connection for a call. When the database has no room for one more (SQLSTATE 53300:
    /// its max_connections, or the role's limit, reached by every process's connections), the
    /// first connection another call of this process gives back, or a new one once there is
    /// room, within `roomWait`: calls beyond the database's room take turns on this process's
    /// connections, where each was a 503 while the database was up, with an outage logged and
    /// over within the second, again and again. Only while this process has connections that
    /// calls take turns on (open, or being made), not on a thread that holds one already, and
    /// not for a write lease's own connection (a scan on a full database fails at once). One
    /// waiter at a time tries for room, every half second: each try is a login the database
    /// refuses, and logs.
    private func openOrWaitForRoom() throws(StoreError) -> WatchedConnection {
        do {
            return try openWatched(forSessions: true)
        } catch {
            // Another call's connection may have taken the last room while still being made. A
            // thread that holds a connection already (a layout's store, whose snapshot asks for a
            // second) would wait for its own.
            let turns = sessionConnections.load(ordering: .relaxed) > 0 || pendingConnects.load(ordering: .relaxed) > 0
            let full = Self.sqlState(error) == "53300" || error is ConnectTimeout && pendingConnects.load(ordering: .relaxed) >= Self.pendingConnectsAtMost
            guard full, turns, !holdsSession else { throw classified(error) }
            let deadline = ContinuousClock.now + Self.roomWait
            while ContinuousClock.now < deadline {
                if let watched = takeIdle() { return watched }
                waitingForRoom.wrappingAdd(1, ordering: .relaxed)
                returned.lock()
                _ = returned.wait(until: Date(timeIntervalSinceNow: 0.1)) // a connection given back
                returned.unlock()
                waitingForRoom.wrappingSubtract(1, ordering: .relaxed)
                if let watched = takeIdle() { return watched }
                let now = ContinuousClock.now
                let due = roomTried.withLock { last in
                    guard now - last >= .milliseconds(500) else { return false }
                    last = now
                    return true
                }
                guard due else { continue }
                do {
                    return try openWatched(forSessions: true)
                } catch where Self.sqlState(error) == "53300" || error is ConnectTimeout {
                    continue // still full, or too many logins pending in this process
                } catch {
                    throw classified(error)
                }
            }
            throw classified(error)
        }
    }

    /// How long a call waits for room on a database at its max_connections: a read's deadline.
    static let roomWait: Duration = .seconds(30)

    /// A failure to connect as the store says it.
    private func classified(_ error: any Error) -> StoreError {
        switch error {
        case let error as PSQLError where error.code == .authMechanismRequiresPassword:
            // Asked for a password only since connections were made (pg_hba changed): an outage too.
            return connectedOnce.load(ordering: .relaxed) ? .unreachable(path: location.display, reason: location.noPasswordReason)
                                                          : .cannotOpen(path: location.display, reason: location.noPasswordReason)
        default:
            // A login refused once connections were made (the role's password changed, its login
            // taken away, its database dropped) is an outage of this process's database, as a
            // server that is down: a server answers 503, tries again, and logs why. Refused at
            // the first connection, it is `cannotOpen`, in the server's words.
            let refusedSince = connectedOnce.load(ordering: .relaxed) && ["28P01", "28000", "3D000"].contains(Self.sqlState(error) ?? "")
            return Self.isConnectionLoss(error) || refusedSince ? .unreachable(path: location.display, reason: Self.message(error))
                                                                : .cannotOpen(path: location.display, reason: Self.message(error))
        }
    }

    /// Opens a connection of its own, for async callers (the change listener).
    func connect() async throws -> PostgresConnection {
        try await connecting().get()
    }

    /// A new connection, or `ConnectTimeout` past `Self.connectTimeout`: the configuration's
    /// timeout covers the socket's connect only, and a server that accepts connections without
    /// answering them (stopped with SIGSTOP, or its machine cut off behind a socket that still
    /// accepts) would hold the startup exchange, and its caller, forever. A connection made after
    /// its caller gave up is closed.
    private func connecting() -> EventLoopFuture<PostgresConnection> {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        // Connections still being made, given up on or not: past a few, a server that does not
        // answer them would otherwise gather one socket per request for as long as it is away.
        guard pendingConnects.wrappingAdd(1, ordering: .relaxed).oldValue < Self.pendingConnectsAtMost else {
            pendingConnects.wrappingSubtract(1, ordering: .relaxed)
            return loop.makeFailedFuture(ConnectTimeout())
        }
        let promise = loop.makePromise(of: PostgresConnection.self)
        let giveUp = loop.scheduleTask(in: Self.connectTimeout) { promise.fail(ConnectTimeout()) }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let made: EventLoopFuture<PostgresConnection> = switch location.endpoint {
        case .tcp(let host, let port):
            // A socket of its own, with the keepalive options PostgresNIO's bootstrap does not set.
            Self.bootstrap(on: loop, keepalive: location.keepalive).connect(host: host, port: port)
                .flatMapErrorThrowing { error in throw CannotConnect(underlying: error) }
                .flatMap { [configuration, keepalive = location.keepalive] channel in
                    var established = PostgresConnection.Configuration(establishedChannel: channel, username: configuration.username,
                                                                       password: configuration.password, database: configuration.database)
                    established.options = configuration.options
                    return PostgresConnection.connect(on: loop, configuration: established, id: id, logger: Self.logger)
                        .flatMap { connection in
                            // Not as startup parameters, which a pooler in front (PgBouncer) refuses:
                            // set once connected, and a refusal leaves the connection as it is.
                            connection.query(Self.serverKeepalive(keepalive), logger: Self.logger)
                                .map { _ in connection }
                                .flatMapError { _ in loop.makeSucceededFuture(connection) }
                        }
                }
        case .socket:
            PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: Self.logger)
        }
        made.hop(to: loop)
            .whenComplete { [self] result in
                pendingConnects.wrappingSubtract(1, ordering: .relaxed)
                giveUp.cancel()
                promise.futureResult.whenFailure { _ in
                    if case .success(let late) = result { _ = late.close() as EventLoopFuture<Void> }
                }
                promise.completeWith(result) // ignored when the timeout failed it first
            }
        return promise.futureResult
    }

    static let connectTimeout: TimeAmount = .seconds(10)

    /// The same probes and timeout for the server's end of the connection (its settings of
    /// these names, which any user may set for a session; one statement, once per connection
    /// made, and connections are kept): a session whose client the network
    /// cut off ends within the same minute, with its transaction and its locks (a scan's lock
    /// on its root, held by a connection that otherwise waits in silence), instead of after the
    /// server's default of two hours, during which the next scan of that root is refused.
    private static func serverKeepalive(_ keepalive: PostgresLocation.Keepalive) -> PostgresQuery {
        let probes = keepalive.enabled
            ? [("tcp_keepalives_idle", keepalive.idle), ("tcp_keepalives_interval", keepalive.interval), ("tcp_keepalives_count", keepalive.count)]
            : []
        let settings = (probes + [("tcp_user_timeout", keepalive.userTimeout)]).map { "set_config('\($0.0)', '\($0.1)', false)" }
        return PostgresQuery(unsafeSQL: "SELECT " + settings.joined(separator: ", "))
    }

    /// A TCP socket with `keepalive`'s probes and user timeout (Linux's names for them).
    private static func bootstrap(on loop: any EventLoop, keepalive: PostgresLocation.Keepalive) -> ClientBootstrap {
        func tcp(_ name: Int32) -> ChannelOptions.Types.SocketOption {
            .init(level: NIOBSDSocket.OptionLevel(rawValue: CInt(IPPROTO_TCP)), name: NIOBSDSocket.Option(rawValue: name))
        }
        var bootstrap = ClientBootstrap(group: loop).connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.socketOption(.so_keepalive), value: keepalive.enabled ? 1 : 0)
        #if os(Linux)
        if keepalive.enabled {
            bootstrap = bootstrap.channelOption(tcp(TCP_KEEPIDLE), value: keepalive.idle)
                .channelOption(tcp(TCP_KEEPINTVL), value: keepalive.interval)
                .channelOption(tcp(TCP_KEEPCNT), value: keepalive.count)
        }
        bootstrap = bootstrap.channelOption(tcp(CInt(TCP_USER_TIMEOUT)), value: keepalive.userTimeout)
        #endif
        return bootstrap
    }
    /// Connections being made at once at most (see `connecting`).
    static let pendingConnectsAtMost = 16
    private let pendingConnects = Atomic<Int>(0)
    /// The longest a read's query may wait for its answer (reading the order data of
    /// 10,000,000 items, the longest read, takes a few seconds).
    static let readDeadline: TimeAmount = .seconds(30)

    /// Runs `body` on a connection; a failed connection is closed, a healthy one kept for the next
    /// call. With `retrying` (reads only: running them twice changes nothing), a call that failed
    /// because a kept connection had been dropped (the server restarted since) runs once more
    /// on a new one, if `mayRetry` still says so when it failed; not one given up on because the
    /// database did not answer (`WatchedConnection.givenUp`): it waited 40 s, not 30, the
    /// retry's new connection taking 10 s more to time out.
    func withSession<T>(retrying: Bool = false, mayRetry: () -> Bool = { true }, _ body: (PostgresSession) throws -> T) throws -> T {
        try withSession(retrying: retrying, deadline: retrying ? Self.readDeadline : nil, mayRetry: mayRetry, body)
    }

    /// The same, each query given `deadline` (nil: as long as it takes).
    private func withSession<T>(retrying: Bool, deadline: TimeAmount?, mayRetry: () -> Bool, _ body: (PostgresSession) throws -> T) throws -> T {
        let start = NIODeadline.now()
        let kept = takeIdle()
        let watched = try kept ?? openOrWaitForRoom()
        let thread = UInt(bitPattern: Int(pthread_self()))
        holders.withLock { $0[thread, default: 0] += 1 }
        defer { holders.withLock { $0[thread] = $0[thread]! > 1 ? $0[thread]! - 1 : nil } }
        let connection = watched.connection
        let session = PostgresSession(watched)
        // A read that waits past the deadline gives up (its connection is closed) and is
        // retried on a new connection, which a database that stopped answering does not give.
        // Cleared before the connection is given back: another caller may take it at once.
        watched.deadline = deadline
        do {
            let result = try body(session)
            watched.deadline = nil
            giveBack(watched)
            return result
        } catch {
            // A server error leaves the connection usable once any transaction is rolled back.
            watched.deadline = nil
            if !connection.isClosed, !Self.isConnectionLoss(error), (try? session.execute("ROLLBACK")) != nil {
                giveBack(watched)
            } else {
                try? connection.close().wait()
                if retrying, kept != nil, !watched.givenUp, Self.isConnectionLoss(error), mayRetry() {
                    closeAll() // the others were dropped with it
                    // Within what is left of the read's deadline: the retry's queries were left
                    // to wait as long as TCP does, on a database that stopped answering after it.
                    let left = (deadline ?? Self.readDeadline) - (NIODeadline.now() - start)
                    return try withSession(retrying: false, deadline: max(left, .seconds(1)), mayRetry: mayRetry, body)
                }
            }
            throw error
        }
    }

    /// An idle connection that is still open, if there is one.
    private func takeIdle() -> WatchedConnection? {
        while let watched = idle.withLock({ $0.popLast() }) {
            if !watched.connection.isClosed { return watched }
            try? watched.connection.close().wait()
        }
        return nil
    }

    private func giveBack(_ watched: WatchedConnection) {
        guard !watched.connection.isClosed else { return }
        let kept = idle.withLock { idle in
            guard idle.count < Self.keptIdle else { return false }
            idle.append(watched)
            return true
        }
        if !kept { try? watched.connection.close().wait() }
        guard waitingForRoom.load(ordering: .relaxed) > 0 else { return } // the usual case: no one to wake
        returned.lock()
        returned.broadcast()
        returned.unlock()
    }

    func closeAll() {
        for watched in idle.withLock({ idle in defer { idle.removeAll() }; return idle }) { try? watched.connection.close().wait() }
    }

    /// Closes the idle connections, and the reads whose query has waited `stuck` or longer,
    /// which fails them (`ConnectionGone`): what the change listener does when its heartbeat goes
    /// unanswered and a new connection does not answer either. A database that stopped
    /// answering without closing its connections (frozen, or cut off by a network that drops
    /// packets without a word) would otherwise hold every reader until TCP gives up, a quarter
    /// of an hour later. Writes (a scan's batch, an import) are left to end as they end.
    func closeStuck(waitingAtLeast stuck: Duration) {
        closeAll()
        let now = ContinuousClock.now
        let waiting = opened.withLock {
            $0.values.filter { $0.deadline != nil && ($0.waitingSince.map { now - $0 >= stuck } ?? false) }
        }
        for watched in waiting { watched.giveUp() }
    }

    /// What the server or the connection said, in one line.
    static func message(_ error: any Error) -> String {
        if let error = error as? StoreError { return error.description }
        if let error = error as? CannotConnect { return connectionFailure(error.underlying) ?? "cannot connect: \(error.underlying)" }
        if case .server(let answer)? = error as? PostgresError, let message = answer.fields[.message] {
            return message + (answer.fields[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            switch error.code {
            // Their descriptions are PostgresNIO's placeholder ("Generic description to prevent
            // accidental leakage..."): said in words instead.
            case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed before the server answered"
            case .authMechanismRequiresPassword: return "the server asks for a password, and none was given"
            default: break
            }
            // A connection made is past "cannot connect" (a failed TCP connect is `CannotConnect`):
            // one that timed out went unanswered under its keepalive probes or user timeout.
            if let underlying = error.underlying as? IOError, underlying.errnoCode == ETIMEDOUT {
                return "the server stopped answering, and the connection timed out: is the network to it cut off?"
            }
            if let underlying = error.underlying { return connectionFailure(underlying) ?? "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return connectionFailure(error) ?? "\(error)"
    }

    /// A connection that could not be made, in the system's words ("cannot connect: Connection
    /// refused"), rather than NIO's description of the call that failed; nil for other errors.
    private static func connectionFailure(_ error: any Error) -> String? {
        if let error = error as? IOError { return "cannot connect: " + String(cString: strerror(error.errnoCode)) }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first?.error { return connectionFailure(first) ?? "cannot connect: \(first)" }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "cannot connect: the host name \(error.host) does not resolve" }
        }
        return nil
    }

    /// Whether `error` says the connection is gone or could not be made (the server stopped,
    /// restarted, or cannot be reached), rather than that a statement failed.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if case StoreError.unreachable = error { return true }
        if error is ConnectionGone || error is ConnectTimeout || error is CannotConnect { return true }
        // PostgresNIO's future-based calls turn errors into the older type: a closed connection,
        // an unclean shutdown (a protocol error by its text), a server error with its SQLSTATE.
        if let error = error as? PostgresError {
            switch error {
            case .connectionClosed: return true
            case .protocol(let text): return text == "Unexpected connection close"
            case .server(let response): return isConnectionLoss(state: response.fields[.sqlState])
            }
        }
        guard let error = error as? PSQLError else { return error is IOError || error is ChannelError }
        switch error.code {
        case .serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection, .listenFailed:
            return true
        case .server:
            return isConnectionLoss(state: error.serverInfo?[.sqlState])
        default:
            return false
        }
    }

    /// connection_exception (08...), admin_shutdown, crash_shutdown, cannot_connect_now.
    private static func isConnectionLoss(state: String?) -> Bool {
        guard let state else { return false }
        // Also what keeps a running server from answering now: too many connections, out of
        // memory (53300, 53200).
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300", "53200"].contains(state)
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        // A script's (`simpleQuery`, PostgresNIO's older interface) error is of its older type.
        if case .server(let answer)? = error as? PostgresError { return answer.fields[.sqlState] }
        return nil
    }
}
