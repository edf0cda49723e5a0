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
            demand (once, however many requests ask at the same time) when missing.
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

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
    }

    func run() async throws {
        let opened = try catalog.open()
        try await CatalogServer.run(catalog: opened, options: .init(host: host, port: port, quiet: quiet, thumbnailCache: thumbnailCache)) { address in
            // Written straight to the descriptor: scripts wait for this line on a pipe.
            let line = "listening on \(address)\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }
}
