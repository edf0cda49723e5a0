import Foundation
import Testing

/// Where a test's catalog lives: the store tests and CatalogKit's shared tests run against both.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A throwaway PostgreSQL server from Debian's postgresql package, started once for the test
/// process: initdb into a temporary folder (as the `postgres` user when the tests run as root,
/// since PostgreSQL refuses to run as root), listening only on a Unix socket in that folder,
/// stopped and removed when the process exits. Each catalog gets a database of its own.
enum TestPostgres {
    struct Server: Sendable {
        let folder: String
        let port: Int
        let bin: String
    }

    private static let server: Result<Server, PostgresUnavailable> = Result { () throws(PostgresUnavailable) -> Server in try start() }

    struct PostgresUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// A new, empty database on the shared server; its `postgres://` URL.
    static func newDatabase() throws -> String {
        let server = try server.get()
        let name = "catalog_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try run(server.bin + "/createdb", ["-h", server.folder, "-p", String(server.port), "-U", "postgres", name])
        return url(database: name)
    }

    /// The URL of `database` on the shared server.
    static func url(database: String) -> String {
        guard case .success(let server) = server else { return "postgres://unavailable/\(database)" }
        return "postgres://postgres@/\(database)?host=\(server.folder)&port=\(server.port)"
    }

    /// Runs `psql -c sql` against `database` on the shared server; returns its output.
    @discardableResult
    static func psql(_ database: String, _ sql: String) throws -> String {
        let server = try server.get()
        return try run(server.bin + "/psql", ["-X", "-q", "-t", "-A", "-h", server.folder, "-p", String(server.port), "-U", "postgres",
                                              "-d", database, "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    private static var isRoot: Bool { getuid() == 0 }

    private static func start() throws(PostgresUnavailable) -> Server {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw PostgresUnavailable(description: "PostgreSQL is not installed (/usr/lib/postgresql); scripts/install-deps installs it")
        }
        let bin = "/usr/lib/postgresql/\(version)/bin"
        // Short: a Unix socket's path holds at most 107 bytes.
        var template = Array("/tmp/catalog-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresUnavailable(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        let port = Int.random(in: 20_000..<60_000)
        do {
            chmod(folder, 0o755)
            if isRoot { try run("/bin/chown", ["postgres:postgres", folder]) }
            try run(bin + "/initdb", ["-D", folder + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"],
                    asPostgres: true)
            try run(bin + "/pg_ctl", ["-D", folder + "/data", "-l", folder + "/log", "-w", "-t", "60", "start", "-o",
                                      "-k \(folder) -c listen_addresses='' -p \(port) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"],
                    asPostgres: true)
        } catch {
            throw PostgresUnavailable(description: "cannot start PostgreSQL: \(error)")
        }
        try stopWhenThisProcessEnds(Server(folder: folder, port: port, bin: bin))
        return Server(folder: folder, port: port, bin: bin)
    }

    /// The write end of the watchdog's pipe: open until this process ends, however it ends.
    nonisolated(unsafe) private static var watchdogPipe: Int32 = -1

    /// Starts a shell that waits for the end of a pipe only this process holds, then stops the
    /// server and removes its folder: the server goes with the test process, even one that is
    /// killed (an atexit handler would not run then, nor when the test runner ends with _exit).
    private static func stopWhenThisProcessEnds(_ server: Server) throws(PostgresUnavailable) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PostgresUnavailable(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let stop = (isRoot ? "/sbin/runuser -u postgres -- " : "") + "\(server.bin)/pg_ctl -D \(server.folder)/data -m immediate -w stop"
        do {
            try run("/bin/sh", ["-c", "read line; \(stop) > /dev/null 2>&1; rm -rf \(server.folder)"], stdin: fds[0], wait: false)
        } catch {
            throw PostgresUnavailable(description: "cannot start the server's watchdog: \(error)")
        }
        close(fds[0])
        watchdogPipe = fds[1]
    }

    /// Runs a program to its end; its output, or an error with what it printed. posix_spawn and
    /// waitpid, not Foundation's Process: `pg_ctl start` leaves a server running, and Process
    /// was seen never to notice that `runuser` around it had exited.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false, stdin: Int32? = nil,
                            wait: Bool = true) throws -> String {
        let argv = asPostgres && isRoot ? ["/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-pg-run-\(UUID().uuidString)").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw PostgresUnavailable(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        guard wait else { return "" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else {
            throw PostgresUnavailable(description: "\(argv.joined(separator: " ")) exited \(exited): \(text)")
        }
        return text
    }
}
