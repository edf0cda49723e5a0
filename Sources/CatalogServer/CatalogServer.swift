public import CatalogKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import UnixSignals

/// `catalog serve`: the catalog as an HTTP service (routes in Routes/, the contract in
/// Assets/openapi.yaml).
public enum CatalogServer {
    /// Where and how to listen.
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        /// 0: any free port.
        public var port = 8080
        /// No access log.
        public var quiet = false
        /// The thumbnail cache's folder (the one `catalog thumbnails` fills by default).
        public var thumbnailCache = ThumbnailCache.defaultRoot()
        /// How often `/api/events` sends a comment to keep connections open.
        public var eventKeepAlive: Duration = .seconds(15)

        public init(host: String = "127.0.0.1", port: Int = 8080, quiet: Bool = false,
                    thumbnailCache: String = ThumbnailCache.defaultRoot()) {
            self.host = host
            self.port = port
            self.quiet = quiet
            self.thumbnailCache = thumbnailCache
        }
    }

    /// Serves `catalog` until SIGINT or SIGTERM; in-flight requests finish first. `onListening`
    /// gets `http://HOST:PORT/` once the socket listens.
    public static func run(catalog: Catalog, options: Options, onListening: @escaping @Sendable (String) -> Void) async throws {
        let app = application(catalog: catalog, options: options, onListening: onListening)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    static func application(catalog: Catalog, options: Options,
                            onListening: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "catalog") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = options.quiet ? .error : .info
        var quietLogger = logger
        quietLogger.logLevel = .error // Hummingbird's own messages: only errors
        let host = options.host
        return Application(
            router: router(catalog: catalog, thumbnailCache: ThumbnailCache(root: options.thumbnailCache), accessLog: options.quiet ? nil : logger,
                           eventKeepAlive: options.eventKeepAlive),
            configuration: .init(address: .hostname(host, port: options.port), serverName: "catalog"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let shown = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shown):\(port)/")
            },
            logger: quietLogger
        )
    }

    /// Every route, behind the middlewares that give all errors one JSON shape.
    static func router(catalog: Catalog, thumbnailCache: ThumbnailCache, accessLog: Logger?,
                       eventKeepAlive: Duration = .seconds(15)) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        if let accessLog { router.add(middleware: AccessLogMiddleware(logger: accessLog)) }
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: RequestShapeMiddleware())
        let service = CatalogService(catalog: catalog, thumbnailCache: thumbnailCache)
        PageRoutes(service: service).add(to: router)
        ItemRoutes(service: service).add(to: router)
        CatalogRoutes(service: service).add(to: router)
        let pages = service.pages
        let events = GenerationEvents(keepAlive: eventKeepAlive) { try? await service.run { try pages.generation() } }
        ChangeRoutes(service: service, events: events).add(to: router)
        GalleryRoutes().add(to: router)
        return router
    }
}
