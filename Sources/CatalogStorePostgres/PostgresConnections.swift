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
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
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
        self.configuration = configuration
    }

    /// Opens a connection of its own (a write lease holds one for its advisory lock).
    func open() throws(StoreError) -> PostgresConnection {
        do {
            return try PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                                                  id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, logger: Self.logger).wait()
        } catch {
            throw .cannotOpen(path: location.display, reason: Self.message(error))
        }
    }

    /// Runs `body` on a connection; a failed connection is closed, a healthy one kept for the next call.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? open()
        let session = PostgresSession(connection: connection)
        do {
            let result = try body(session)
            giveBack(connection)
            return result
        } catch {
            // A server error leaves the connection usable once any transaction is rolled back.
            if !connection.isClosed, (try? session.execute("ROLLBACK")) != nil {
                giveBack(connection)
            } else {
                try? connection.close().wait()
            }
            throw error
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { idle in
            guard idle.count < Self.keptIdle else { return false }
            idle.append(connection)
            return true
        }
        if !kept { try? connection.close().wait() }
    }

    func closeAll() {
        for connection in idle.withLock({ idle in defer { idle.removeAll() }; return idle }) { try? connection.close().wait() }
    }

    /// What the server or the connection said, in one line.
    static func message(_ error: any Error) -> String {
        if let error = error as? StoreError { return error.description }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

/// One connection, its queries waited for.
struct PostgresSession {
    let connection: PostgresConnection

    /// Every row of `query`.
    @discardableResult
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try connection.query(query, logger: PostgresConnections.logger).wait().rows
    }

    /// Runs `query`; returns the rows it changed (or returned).
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try connection.query(query, logger: PostgresConnections.logger).wait().metadata.rows ?? 0
    }

    /// Runs one statement without parameters.
    func script(_ sql: String) throws {
        _ = try connection.simpleQuery(sql).wait()
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
        _ = try connection.query(query, logger: PostgresConnections.logger, body).wait()
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
