import ArgumentParser
import CatalogKit
import CatalogServer
import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the catalog over HTTP: pages, items, originals, thumbnails, stats (see /api/openapi.yaml).",
        discussion: """
            Listens on loopback unless --host says otherwise. The first line on stdout is \
            `listening on http://HOST:PORT/`. One access-log line per request goes to stderr \
            (--quiet turns it off). SIGINT, SIGTERM or SIGHUP stop it after the requests in flight and the stores of the layouts they computed (a minute at most). \
            Thumbnails come from the cache that `catalog thumbnails` fills, and are made on \
            demand (once, however many requests ask at the same time) when missing. With --scan FOLDER..., the folders \
            are scanned while the server already answers, then kept current as `catalog scan --watch` does (one line \
            per rescan on stderr); GET /api/events tells clients each new generation, whoever made it. On \
            PostgreSQL, a `note:` line on stderr at the start says when its shared_buffers hold less than half \
            of the items and their indexes, which slows the pages a server has not cached.

            Access control: on loopback the server is open, as one person's tool. On any other address (or with \
            a --public-url that is not loopback) it needs tokens: make one with `catalog token new`, which writes \
            the token file beside the catalog, where the server finds it (or name one with --token-file or \
            $CATALOG_TOKEN_FILE). Programs send `Authorization: Bearer TOKEN`; the gallery asks for the token once \
            and keeps a signed session cookie. --no-auth serves without, and says so at every start.

            Limits (each an option below but the fields' count): request line 8 KiB, head 32 KiB and 1,000 header fields (431 past them), 512 connections \
            (a new one closes the connection idle longest, else the one sending a head longest), 10 s for a request \
            to arrive (408), 60 s idle, 60 s \
            without reading a response, 20 failed sign-ins a minute per address (429 with Retry-After).
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "Address to listen on (loopback by default; 0.0.0.0 for every interface).")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "Port, 0 to 65535 (0: any free port).")
    var port = 8080

    @Flag(help: "No access log.")
    var quiet = false

    @Option(help: ArgumentHelp("The thumbnail cache (the folder `catalog thumbnails` fills; default: the catalog's own under $XDG_CACHE_HOME/catalog/thumbnails, else ~/.cache/catalog/thumbnails).", valueName: "folder"))
    var thumbnailCache: String?

    /// The cache the server uses: the one named, else the catalog's own.
    var thumbnailFolder: String { thumbnailCache ?? ThumbnailCache.defaultRoot(forCatalog: catalog.path) }

    @Option(name: .customLong("scan"), parsing: .upToNextOption,
            help: ArgumentHelp("Folders to scan when the server starts and keep current while it runs (as `catalog scan --watch`).",
                               valueName: "folder"))
    var scanRoots: [String] = []

    @Option(help: ArgumentHelp("A streaming replica of the --db PostgreSQL catalog (postgres://USER@HOST:PORT/DB) to read "
                               + "from: pages, items and stats come from it, stored layouts go to --db. Default: $CATALOG_READ_DB.",
                               valueName: "url"))
    var readDB: String?

    @Flag(help: "With --scan: also scan files and folders whose names start with a dot.")
    var includeHidden = false

    @Flag(help: "With --scan: enter no folder on another file system than its root's (as `catalog scan --one-file-system`).")
    var oneFileSystem = false

    @Option(help: ArgumentHelp("The token file (default: $CATALOG_TOKEN_FILE, else the one beside the catalog when "
                               + "access control is needed). Naming one turns access control on, even on loopback.", valueName: "path"))
    var tokenFile: String?

    @Flag(help: "Serve without access control on a network address: anyone who can reach the port sees every photo.")
    var noAuth = false

    @Option(help: ArgumentHelp("The address clients use, as https://photos.example.com/ behind a TLS proxy: sign-ins "
                               + "must come from it, and cookies are Secure when it is https.", valueName: "url"))
    var publicURL: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("How long a gallery session lasts, 1 to 3650 days.", valueName: "days"))
    var sessionDays = 30

    @Option(parsing: .unconditional, help: ArgumentHelp("Failed sign-ins and wrong tokens an address may make in a minute (at least 1); more get 429.", valueName: "count"))
    var failuresPerMinute = 20

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("A reverse proxy's address (repeatable): its X-Forwarded-For names the client that failures count against.",
                               valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("cors-origin"),
            help: ArgumentHelp("An origin (https://app.example.com) whose pages may call the API from the browser (repeatable). None by default.",
                               valueName: "origin"))
    var corsOrigins: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Open connections at most (at least 1).", valueName: "count"))
    var maxConnections = 512

    @Option(name: .customLong("page-cache-mb"), parsing: .unconditional,
            help: ArgumentHelp("Memory for the pages of stored layouts (their windows and their items' keys), in MiB, 1 to 1048576. "
                + "256 holds a 2-column layout of about 2,500,000 imported items; random offsets over a larger catalog "
                + "read the database for the pages it does not hold.", valueName: "MiB"))
    var pageCacheMB = 256

    @Option(parsing: .unconditional, help: ArgumentHelp("A request head's size at most, 1024 to 81920 (its line: 8 KiB at most); 431 past it.", valueName: "bytes"))
    var maxHeaderBytes = 32 * 1024

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds a request may take to arrive, head and body, 1 to 86400; 408 past it.", valueName: "seconds"))
    var requestTimeout = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds a connection may sit with no request before it is closed, 1 to 86400.", valueName: "seconds"))
    var idleTimeout = 60

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds a client may read nothing of a response before it is closed, 1 to 86400.", valueName: "seconds"))
    var writeTimeout = 60

    /// The window failures are counted over (tests; 60 by default).
    @Option(help: .hidden)
    var failureWindowSeconds = 60

    /// Seconds between /api/events' keep-alive comments (tests; 15 by default).
    @Option(help: .hidden)
    var keepAliveSeconds = 15

    func validate() throws {
        if scanRoots.contains("") { throw ValidationError("--scan: " + Scan.emptyRoot) }
        if thumbnailCache?.isEmpty == true { throw ValidationError("--thumbnail-cache must name a folder, got an empty path (an unset shell variable?)") }
        if tokenFile?.isEmpty == true { throw ValidationError(Token.emptyTokenFile) }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \"\(port)\"") }
        if noAuth, tokenFile != nil { throw ValidationError("--no-auth and --token-file contradict each other: choose one") }
        guard sessionDays >= 1 else { throw ValidationError("--session-days must be at least 1, got \"\(sessionDays)\"") }
        guard sessionDays <= 3650 else { throw ValidationError("--session-days must be at most 3650, got \"\(sessionDays)\"") }
        guard failuresPerMinute >= 1 else { throw ValidationError("--failures-per-minute must be at least 1, got \"\(failuresPerMinute)\"") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1, got \"\(maxConnections)\"") }
        guard (1...1 << 20).contains(pageCacheMB) else { throw ValidationError("--page-cache-mb must be 1 to 1048576, got \"\(pageCacheMB)\"") }
        guard maxHeaderBytes >= 1024 else { throw ValidationError("--max-header-bytes must be at least 1024, got \"\(maxHeaderBytes)\"") }
        guard maxHeaderBytes <= 80 * 1024 else { throw ValidationError("--max-header-bytes must be at most 81920, got \"\(maxHeaderBytes)\"") }
        for (name, value) in [("--request-timeout", requestTimeout), ("--idle-timeout", idleTimeout), ("--write-timeout", writeTimeout)] {
            guard (1...86_400).contains(value) else { throw ValidationError("\(name) must be 1 to 86400 seconds, got \"\(value)\"") }
        }
        if let publicURL, ServeAccess.origin(of: publicURL) == nil {
            throw ValidationError("--public-url must be an http(s) address such as https://photos.example.com/, got \"\(publicURL)\"")
        }
        for origin in corsOrigins where ServeAccess.origin(of: origin) == nil {
            throw ValidationError("--cors-origin must be an origin such as https://app.example.com, got \"\(origin)\"")
        }
        let replicaSource = readDB != nil ? "--read-db" : "$CATALOG_READ_DB"
        if let replica, !CatalogLocation.isPostgres(replica) {
            throw ValidationError("\(replicaSource) is a PostgreSQL replica's postgres:// URL, got \"\(replica.prefix(60))\"")
        }
        if replica != nil, !scanRoots.isEmpty {
            throw ValidationError("--scan and \(replicaSource) do not go together: run `catalog scan --watch` against the primary instead")
        }
        // They shape what --scan walks: without it they would do nothing, and say nothing.
        for (flag, given) in [("--include-hidden", includeHidden), ("--one-file-system", oneFileSystem)] where given && scanRoots.isEmpty {
            throw ValidationError(replica != nil
                ? "\(flag) applies to the folders of --scan, which a server reading \(replicaSource) does not scan: leave \(flag) out"
                : "\(flag) applies to the folders of --scan, and none is given: add --scan FOLDER, or leave \(flag) out")
        }
        // A peer is an address as the socket gives it: a name or a typo would never match one.
        for proxy in trustedProxies where !Self.isIPAddress(proxy) {
            throw ValidationError("--trusted-proxy must be an IP address such as 127.0.0.1 or ::1, got \"\(proxy)\"")
        }
        // Before anything is said of the host (loopback or not, access control): it must be one.
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &found)
        if let found { freeaddrinfo(found) }
        if code != 0 { throw ValidationError("--host \"\(host)\" cannot be resolved: \(String(cString: gai_strerror(code)))") }
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// The replica to read from: --read-db, else $CATALOG_READ_DB.
    var replica: String? {
        readDB ?? environmentValue("CATALOG_READ_DB")
    }

    /// Open files the server keeps for itself, beside its connections: the event loops' (an
    /// epoll, an eventfd and a timer a thread), the catalog's database files and connections,
    /// the watcher's, thumbnails being made and originals being sent.
    static let filesBesideConnections = 64

    func run() async throws {
        let access = try accessOptions()
        let room = FileLimit.current - Self.filesBesideConnections // connections the files leave room for
        let connections = min(maxConnections, room)
        guard room >= 8 else {
            printError("Error: the server needs at least \(Self.filesBesideConnections + 8) open files, "
                + "and this process may open \(FileLimit.current) (ulimit -n)")
            throw ExitCode(1)
        }
        if connections < maxConnections {
            printError("warning: --max-connections \(maxConnections) lowered to \(connections): this process may open "
                + "\(FileLimit.current) files (ulimit -n), \(Self.filesBesideConnections) of them kept for the server's own")
        }
        // A server that scans may start on a new catalog; one that only serves needs one that exists.
        let opened = try replica.map { try Catalog.open(at: catalog.path, readingFrom: $0, create: !scanRoots.isEmpty) }
            ?? (scanRoots.isEmpty ? catalog.openExisting() : catalog.open())
        // Best effort: a database that does not answer now is reported by the requests.
        for note in (try? opened.store.servingNotes()) ?? [] { printError("note: \(note)") }
        let watching = scanRoots.isEmpty ? nil : startWatching(opened)
        var stopped = false // by a signal; else the server failed (a port in use), and says why
        defer {
            if let (stop, done, firstScanned) = watching {
                stop.stop() // after the rescan under way
                // The first scan does not stop until it is done (minutes on a large library):
                // the batches it wrote are kept, the one under way rolled back, as when a scan
                // is interrupted. (Half a second first: a watch waiting out a busy catalog stops.)
                if firstScanned.isStopped {
                    done.wait()
                } else if done.wait(timeout: .now() + 0.5) == .timedOut, stopped {
                    printError("stopped during the first scan: \(Scan.interruptedScan)")
                    _exit(0)
                }
            }
        }
        var options = CatalogServer.Options(host: host, port: port, quiet: quiet, thumbnailCache: thumbnailFolder)
        options.eventKeepAlive = .seconds(keepAliveSeconds)
        options.access = access
        options.publicHost = publicURL.flatMap { URLComponents(string: $0)?.host }
        options.corsOrigins = corsOrigins.compactMap(ServeAccess.origin(of:))
        options.limits.maxConnections = connections
        options.pageCacheBytes = pageCacheMB << 20
        options.limits.maxHeadBytes = maxHeaderBytes
        options.limits.maxRequestLineBytes = min(8 * 1024, maxHeaderBytes)
        options.limits.requestTimeout = .seconds(requestTimeout)
        options.limits.idleTimeout = .seconds(idleTimeout)
        options.limits.writeTimeout = .seconds(writeTimeout)
        try await CatalogServer.run(catalog: opened, options: options) { address in
            // Written straight to the descriptor: scripts wait for this line on a pipe.
            let line = "listening on \(address)\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
        stopped = true
    }
}

extension Serve {
    /// Access control as the options and the address ask: on with a token file named or needed,
    /// off on loopback or with --no-auth (warned about). A server that needs tokens and has no
    /// token file stops here, exit 2, saying how to make one.
    func accessOptions() throws -> CatalogServer.Access? {
        let named = tokenFile ?? (noAuth ? nil : environmentValue("CATALOG_TOKEN_FILE"))
        let beyondThisMachine = !ServeAccess.listensOnLoopbackOnly(host: host) || publicURL.map { !ServeAccess.isLoopback(url: $0) } ?? false
        if noAuth {
            let place = port == 0 ? "\(host) on the port it listens on" : "\(host):\(port)"
            printError("warning: access control is off (--no-auth): anyone who can reach \(place) can see and download every photo"
                + (beyondThisMachine ? "" : " (on loopback: anyone and anything on this machine)"))
            return nil
        }
        guard named != nil || beyondThisMachine else { return nil }
        let path = named ?? TokenFile.defaultPath(forCatalog: catalog.path)
        let file = TokenFile(path: path)
        let count: Int
        do {
            count = try file.read().tokens.count
        } catch {
            let otherwise = beyondThisMachine
                ? "Or serve on loopback (the default --host), or pass --no-auth to serve without (anyone who can reach the port sees every photo)."
                : "Or leave out --token-file (and $CATALOG_TOKEN_FILE): on loopback the server needs no token."
            guard case AccessError.missing = error else {
                // A file that is there but cannot be read, or a folder: making a token is not the fix.
                printError("error: \(error).\n  \(otherwise)")
                Foundation.exit(2)
            }
            var reason = named == nil
                ? "catalog serve on \(host) is reachable beyond this machine, so it needs access control, and there is no token file at \(path)"
                : "there is no token file at \(path)" // the next line says how to make one
            if named == nil, let former = TokenFile.formerDefaultPath(forCatalog: catalog.path), FileManager.default.fileExists(atPath: former) {
                reason += ".\n  Versions before 2026-12-01 named it \(former), a name another database's URL may share: "
                    + "if it holds this catalog's tokens alone, rename it to \(path)"
            }
            printError("""
                error: \(reason).
                  Make a token:  catalog token new\(named == nil ? catalog.db.map { " --db \(PathText.shellWord($0))" } ?? "" : " --token-file \(PathText.shellWord(path))")
                  then start again; clients send it as `Authorization: Bearer TOKEN`, and the gallery asks for it once.
                  \(otherwise)
                """)
            Foundation.exit(2)
        }
        if count == 0 { printError("warning: \(path) holds no token yet: nobody can sign in until `catalog token new` adds one") }
        if file.isReadableByOthers { printError("warning: \(path) can be read by other users: `chmod 600 \(PathText.shellWord(path))`") }
        printError("access control: on, \(count) token\(count == 1 ? "" : "s") in \(path); sessions last \(sessionDays) day\(sessionDays == 1 ? "" : "s")")
        var access = CatalogServer.Access(tokenFile: path)
        access.sessionLifetime = .seconds(sessionDays * 86_400)
        access.failuresPerMinute = failuresPerMinute
        access.failureWindow = .seconds(failureWindowSeconds)
        access.publicURL = publicURL
        access.trustedProxies = trustedProxies
        access.report = { printError($0) }
        return access
    }

    /// `--scan`: the first scan and the watch on a thread of their own, while the server
    /// already answers (a gallery sees the batches arrive); one line per rescan on stderr.
    func startWatching(_ catalog: Catalog) -> (stop: StopFlag, done: DispatchSemaphore, firstScanned: StopFlag) {
        let stop = StopFlag()
        let firstScanned = StopFlag()
        let done = DispatchSemaphore(value: 0)
        let roots = scanRoots
        var scanOptions = ScanOptions(includeHidden: includeHidden)
        scanOptions.oneFileSystem = oneFileSystem
        scanOptions.passOver = [ThumbnailCache.defaultRoot(), thumbnailFolder] // its thumbnails are no photos
        let options = scanOptions
        var patient = WatchSettings()
        patient.patient = true // the server goes on: so does its watch, through a busy catalog or an outage
        let settings = patient
        let thread = Thread {
            defer { done.signal() }
            do {
                try catalog.watch(roots, options: options, settings: settings, stop: stop) { event in
                    switch event {
                    case .watching(let summary, let folders):
                        firstScanned.stop()
                        printError("scanned: added \(summary.added), updated \(summary.updated), moved \(summary.moved), removed \(summary.removed), "
                            + "failed \(summary.failed); watching \(folders) folder\(folders == 1 ? "" : "s")")
                        for problem in summary.problems { printError("warning: \(problem)") }
                        for root in summary.unscannedRoots { printError("error: \(root)") }
                    case .limitReached(let watched, let interval):
                        printError("warning: the kernel's inotify watch limit was reached after \(watched) folders; "
                            + "every root is scanned again every \(interval.components.seconds) s")
                    case .rescanned(let summary, let folders):
                        printError("rescanned \(folders.count) folder\(folders.count == 1 ? "" : "s"): added \(summary.added), "
                            + "updated \(summary.updated), moved \(summary.moved), removed \(summary.removed), failed \(summary.failed); "
                            + "generation \(summary.generation)")
                        for problem in summary.problems { printError("warning: \(problem)") }
                        for root in summary.unscannedRoots { printError("warning: \(root)") }
                    case .retrying(let error):
                        let said = "\(error)"
                        printError("warning: watching waits: \(said)\(said.hasSuffix(".") ? "" : ".") "
                            + "The changes seen meanwhile are scanned once it can write again.")
                    }
                }
            } catch {
                let said = "\(error)"
                printError("error: watching stopped: \(said.hasSuffix(".") ? String(said.dropLast()) : said); the server goes on without it")
            }
        }
        thread.start()
        return (stop, done, firstScanned)
    }
}
