import Foundation
import Testing

/// Where a test's catalog lives: the store tests and CatalogKit's shared tests run against both.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A throwaway PostgreSQL server from Debian's postgresql package: initdb into a temporary
/// folder (as the `postgres` user when the tests run as root, since PostgreSQL refuses to run as
/// root), listening on a Unix socket in that folder (and on 127.0.0.1 for a test that asks), stopped and removed when the test
/// process exits, however it exits. `TestPostgres.shared` is started once for the process and
/// each catalog gets a database of its own on it; a test that stops its server (the fault
/// tests) launches one of its own.
final class TestPostgresServer: Sendable {
    let folder: String
    let port: Int
    let bin: String

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    private init(folder: String, port: Int, bin: String, tcp: Bool = false) {
        self.folder = folder
        self.port = port
        self.bin = bin
        self.tcp = tcp
    }

    /// Whether the server listens on 127.0.0.1 too.
    let tcp: Bool

    /// A loopback port no socket is bound to now (the kernel's pick).
    private static func freePort() throws(Unavailable) -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard socket >= 0, bound else { throw Unavailable(description: "cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A new server, running; with `tcp`, listening on 127.0.0.1 at its port too (`tcpURL`).
    static func launch(tcp: Bool = false) throws(Unavailable) -> TestPostgresServer {
        try running(bin: binaries(), what: "PostgreSQL", tcp: tcp) { server in
            try run(server.bin + "/initdb", ["-D", server.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"],
                    asPostgres: true)
        }
    }

    /// A streaming replica of this server (pg_basebackup -R), running: it follows every commit.
    func replica() throws(Unavailable) -> TestPostgresServer {
        try Self.running(bin: bin, what: "a replica") { replica in
            try Self.run(bin + "/pg_basebackup", ["-D", replica.data, "-R", "-X", "stream", "--checkpoint=fast", "-h", folder, "-p", String(port),
                                                  "-U", "postgres"], asPostgres: true)
        }
    }

    /// A server in a new folder whose data `make` writes, started, and stopped with this process.
    private static func running(bin: String, what: String, tcp: Bool = false,
                                _ make: (TestPostgresServer) throws -> Void) throws(Unavailable) -> TestPostgresServer {
        let server = try TestPostgresServer(folder: madeFolder(), port: tcp ? freePort() : Int.random(in: 20_000..<60_000), bin: bin, tcp: tcp)
        do {
            try make(server)
            try server.start()
        } catch {
            throw Unavailable(description: "cannot start \(what): \(error)")
        }
        try server.stopWhenThisProcessEnds()
        return server
    }

    private var data: String { folder + "/data" }

    func start() throws {
        try Self.run(bin + "/pg_ctl", ["-D", data, "-l", folder + "/log", "-w", "-t", "60", "start", "-o",
                                       "-k \(folder) -c listen_addresses='\(tcp ? "127.0.0.1" : "")' -p \(port) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"],
                     asPostgres: true)
    }

    /// Stops the server the way an administrator does (`pg_ctl stop -m fast`: every session is
    /// ended, open transactions rolled back); returns once it is down.
    func stop() throws {
        try Self.run(bin + "/pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"], asPostgres: true)
    }

    /// Sends `signal` to the server and every process it started (SIGSTOP: a server that stops
    /// answering without closing a connection; SIGCONT: it answers again).
    func signalEveryProcess(_ signal: Int32) throws {
        let text = try String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(pid_t(text.split(separator: "\n").first ?? ""))
        var children: [pid_t] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { children.append(pid) }
        }
        // Stopped children first, so none is started while the server stops; resumed after it.
        let order = signal == SIGSTOP ? children + [postmaster] : [postmaster] + children
        for pid in order { kill(pid, signal) }
    }

    /// A new, empty database; its `postgres://` URL.
    func newDatabase() throws -> String {
        let name = "catalog_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try Self.run(bin + "/createdb", ["-h", folder, "-p", String(port), "-U", "postgres", name])
        return url(database: name)
    }

    /// The URL of `database` on this server.
    func url(database: String) -> String {
        "postgres://postgres@/\(database)?host=\(folder)&port=\(port)"
    }

    /// The URL of `database` on this server over TCP (a server launched with `tcp`).
    func tcpURL(database: String) -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Runs `psql -c sql` against `database`; returns its output.
    @discardableResult
    func psql(_ database: String, _ sql: String) throws -> String {
        try Self.run(bin + "/psql", ["-X", "-q", "-t", "-A", "-h", folder, "-p", String(port), "-U", "postgres",
                                     "-d", database, "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// A new role that may log in only with `password` (scram-sha-256; every other role keeps
    /// trust): its name.
    func roleWithPassword(_ password: String) throws -> String {
        let role = "pw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try psql("postgres", "CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        let hba = data + "/pg_hba.conf"
        let rules = try String(contentsOfFile: hba, encoding: .utf8)
        try ("local all \(role) scram-sha-256\n" + rules).write(toFile: hba, atomically: false, encoding: .utf8)
        try psql("postgres", "SELECT pg_reload_conf()")
        return role
    }

    /// `psql` on `database` reading its commands from a pipe, running until the pipe is closed:
    /// a session that holds a lock for as long as a test needs it.
    func session(_ database: String) throws -> (process: Process, input: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bin + "/psql")
        process.arguments = ["-X", "-q", "-h", folder, "-p", String(port), "-U", "postgres", "-d", database]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, input.fileHandleForWriting)
    }

    private static var isRoot: Bool { getuid() == 0 }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc
    /// module does not declare.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func binaries() throws(Unavailable) -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw Unavailable(description: "PostgreSQL is not installed (/usr/lib/postgresql); scripts/install-deps installs it")
        }
        return "/usr/lib/postgresql/\(version)/bin"
    }

    /// A new folder the server's user owns. Short: a Unix socket's path holds at most 107 bytes.
    private static func madeFolder() throws(Unavailable) -> String {
        var template = Array("/tmp/catalog-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Unavailable(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        chmod(folder, 0o755)
        if isRoot {
            do { try run("/bin/chown", ["postgres:postgres", folder]) } catch { throw Unavailable(description: "\(error)") }
        }
        return folder
    }

    /// The write ends of the watchdogs' pipes: open until this process ends, however it ends.
    nonisolated(unsafe) private static var watchdogPipes: [Int32] = []
    private static let watchdogLock = NSLock()

    /// Starts a shell that waits for the end of a pipe only this process holds, then stops the
    /// server and removes its folder: the server goes with the test process, even one that is
    /// killed (an atexit handler would not run then, nor when the test runner ends with _exit).
    private func stopWhenThisProcessEnds() throws(Unavailable) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Unavailable(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let stop = (Self.isRoot ? "/sbin/runuser -u postgres -- " : "") + "\(bin)/pg_ctl -D \(data) -m immediate -w stop"
        do {
            try Self.run("/bin/sh", ["-c", "read line; \(stop) > /dev/null 2>&1; rm -rf \(folder)"], stdin: fds[0], wait: false)
        } catch {
            throw Unavailable(description: "cannot start the server's watchdog: \(error)")
        }
        close(fds[0])
        Self.watchdogLock.withLock { Self.watchdogPipes.append(fds[1]) }
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
        // Nothing else: a server or watchdog left running must not hold another test's pipe open.
        _ = Self.closeFrom?(&actions, 3)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw Unavailable(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        guard wait else { return "" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else {
            throw Unavailable(description: "\(argv.joined(separator: " ")) exited \(exited): \(text)")
        }
        return text
    }
}

/// The server shared by the test process, started on first use.
enum TestPostgres {
    private static let server = Result { () throws(TestPostgresServer.Unavailable) -> TestPostgresServer in try .launch() }

    /// A new, empty database on the shared server; its `postgres://` URL.
    static func newDatabase() throws -> String { try server.get().newDatabase() }

    /// The URL of `database` on the shared server.
    static func url(database: String) -> String {
        guard case .success(let server) = server else { return "postgres://unavailable/\(database)" }
        return server.url(database: database)
    }

    /// Runs `psql -c sql` against `database` on the shared server; returns its output.
    @discardableResult
    static func psql(_ database: String, _ sql: String) throws -> String { try server.get().psql(database, sql) }

    /// A role on the shared server that must give `password` (see `TestPostgresServer.roleWithPassword`);
    /// the URL of its `postgres` database.
    static func urlOfRoleWithPassword(_ password: String) throws -> String {
        let server = try server.get()
        return "postgres://\(try server.roleWithPassword(password))@/postgres?host=\(server.folder)&port=\(server.port)"
    }

    /// A `psql` session on `database` on the shared server (see `TestPostgresServer.session`).
    static func session(_ database: String) throws -> (process: Process, input: FileHandle) { try server.get().session(database) }
}
