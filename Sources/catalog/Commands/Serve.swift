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
            (--quiet turns it off). SIGINT or SIGTERM stop it after the requests in flight. \
            Thumbnails come from the cache that `catalog thumbnails` fills, and are made on \
            demand (once, however many requests ask at the same time) when missing. With --scan FOLDER..., the folders \
            are scanned while the server already answers, then kept current as `catalog scan --watch` does (one line \
            per rescan on stderr); GET /api/events tells clients each new generation, whoever made it.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "Address to listen on (loopback by default; 0.0.0.0 for every interface).")
    var host = "127.0.0.1"

    @Option(help: "Port (0: any free port).")
    var port = 8080

    @Flag(help: "No access log.")
    var quiet = false

    @Option(help: ArgumentHelp("The thumbnail cache (the folder `catalog thumbnails` fills).", valueName: "folder"))
    var thumbnailCache = ThumbnailCache.defaultRoot()

    @Option(name: .customLong("scan"), parsing: .upToNextOption,
            help: ArgumentHelp("Folders to scan when the server starts and keep current while it runs (as `catalog scan --watch`).",
                               valueName: "folder"))
    var scanRoots: [String] = []

    @Flag(help: "With --scan: also scan files and folders whose names start with a dot.")
    var includeHidden = false

    /// Seconds between /api/events' keep-alive comments (tests; 15 by default).
    @Option(help: .hidden)
    var keepAliveSeconds = 15

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
    }

    func run() async throws {
        let opened = try catalog.open()
        let watching = scanRoots.isEmpty ? nil : startWatching(opened)
        defer {
            if let (stop, done) = watching {
                stop.stop() // after the rescan under way
                done.wait()
            }
        }
        var options = CatalogServer.Options(host: host, port: port, quiet: quiet, thumbnailCache: thumbnailCache)
        options.eventKeepAlive = .seconds(keepAliveSeconds)
        try await CatalogServer.run(catalog: opened, options: options) { address in
            // Written straight to the descriptor: scripts wait for this line on a pipe.
            let line = "listening on \(address)\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }
}

extension Serve {
    /// `--scan`: the first scan and the watch on a thread of their own, while the server
    /// already answers (a gallery sees the batches arrive); one line per rescan on stderr.
    func startWatching(_ catalog: Catalog) -> (StopFlag, DispatchSemaphore) {
        let stop = StopFlag()
        let done = DispatchSemaphore(value: 0)
        let roots = scanRoots
        let options = ScanOptions(includeHidden: includeHidden)
        let thread = Thread {
            defer { done.signal() }
            do {
                try catalog.watch(roots, options: options, stop: stop) { event in
                    switch event {
                    case .watching(let summary, let folders):
                        printError("scanned: added \(summary.added), updated \(summary.updated), removed \(summary.removed), "
                            + "failed \(summary.failed); watching \(folders) folder\(folders == 1 ? "" : "s")")
                        for root in summary.unscannedRoots { printError("error: \(root)") }
                    case .limitReached(let watched, let interval):
                        printError("warning: the kernel's inotify watch limit was reached after \(watched) folders; "
                            + "every root is scanned again every \(interval.components.seconds) s")
                    case .rescanned(let summary, let folders):
                        printError("rescanned \(folders.count) folder\(folders.count == 1 ? "" : "s"): added \(summary.added), "
                            + "updated \(summary.updated), moved \(summary.moved), removed \(summary.removed); generation \(summary.generation)")
                    }
                }
            } catch {
                printError("error: watching stopped: \(error); the server goes on without it")
            }
        }
        thread.start()
        return (stop, done)
    }
}
