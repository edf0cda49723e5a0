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
        /// Access control: nil lets every client in (loopback's default).
        public var access: Access?
        /// Origins (`https://app.example.com`) whose pages may read the API cross-origin.
        public var corsOrigins: [String] = []
        public var limits = ConnectionLimits()
        /// The memory the page cache may take, about: the stored layouts' windows and their
        /// items' keys read for pages (`PageCache`).
        public var pageCacheBytes = PageCache.defaultBudgetBytes
        /// The host of `--public-url` when access control is off: a Host an open loopback server
        /// also answers (a proxy that passes the public name on).
        public var publicHost: String?

        public init(host: String = "127.0.0.1", port: Int = 8080, quiet: Bool = false,
                    thumbnailCache: String = ThumbnailCache.defaultRoot()) {
            self.host = host
            self.port = port
            self.quiet = quiet
            self.thumbnailCache = thumbnailCache
        }
    }

    /// Who may use the catalog: the tokens of a token file, as bearer tokens or as the gallery's
    /// session cookie.
    public struct Access: Sendable {
        public var tokenFile: String
        /// How long a gallery session lasts.
        public var sessionLifetime: Duration = .seconds(30 * 86_400)
        /// Failed sign-ins and wrong tokens an address may make in a minute before it gets 429.
        public var failuresPerMinute = 20
        /// The window those failures are counted over.
        public var failureWindow: Duration = .seconds(60)
        /// The address clients use (`https://photos.example.com/`): sign-ins must come from its
        /// origin (or the request's own Host, as without it), and its cookies are `Secure` when it is https.
        public var publicURL: String?
        /// Peers (a reverse proxy's address) whose `X-Forwarded-For` names the client.
        public var trustedProxies: [String] = []
        /// Where warnings about the token file go (never a token).
        public var report: @Sendable (String) -> Void = { _ in }

        public init(tokenFile: String) {
            self.tokenFile = tokenFile
        }
    }

    /// Serves `catalog` until SIGINT, SIGTERM or SIGHUP (its terminal closed); in-flight requests finish first, then the stores
    /// of the layouts they computed (`LayoutsBeingStored.shutdownWait` at most). `onListening`
    /// gets `http://HOST:PORT/` once the socket listens.
    public static func run(catalog: Catalog, options: Options, onListening: @escaping @Sendable (String) -> Void) async throws {
        let app = application(catalog: catalog, options: options, onListening: onListening)
        do {
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint, .sighup])
        } catch let error as IOError {
            throw ListenError(host: options.host, port: options.port, errno: error.errnoCode) ?? error
        }
    }

    /// Why the server could not listen, said in terms of the options that chose the address.
    public struct ListenError: Error, CustomStringConvertible {
        public let description: String

        init?(host: String, port: Int, errno: Int32) {
            let address = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
            switch errno {
            case EADDRINUSE:
                description = "cannot listen on \(address): the port is in use (another server?); choose another --port, or --port 0 for any free one"
            case EACCES:
                description = "cannot listen on \(address): permission denied (ports below 1024 need privileges); choose a port from 1024 on"
            case EADDRNOTAVAIL:
                description = "cannot listen on \(address): \(host) is not an address of this machine (--host)"
            default:
                return nil
            }
        }
    }

    /// The server, its routes calling `service` (made for `catalog` when nil; tests give their own).
    static func application(catalog: Catalog, options: Options, service: CatalogService? = nil,
                            onListening: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
        var logger = Logger(label: "catalog") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = options.quiet ? .error : .info
        var quietLogger = logger
        quietLogger.logLevel = .error // Hummingbird's own messages: only errors
        let host = options.host
        let service = service ?? CatalogService(catalog: catalog, thumbnailCache: ThumbnailCache(root: options.thumbnailCache), errorLog: quietLogger,
                                                  pageCacheBytes: options.pageCacheBytes)
        return Application(
            router: router(service: service, options: options, accessLog: options.quiet ? nil : logger, errorLog: quietLogger),
            server: .guardedHTTP1(limits: options.limits),
            configuration: .init(address: .hostname(host, port: options.port), serverName: "catalog", backlog: 1024),
            // Before the server's own, so told of a graceful shutdown after it: once the server
            // has answered its last requests (and they started what stores they start).
            services: [service.beingStored],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let shown = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shown):\(port)/")
            },
            logger: quietLogger
        )
    }

    /// Every route, behind the middlewares: the access log, the headers every response carries,
    /// errors in one JSON shape, the Host header's shape, access control, then the request's shape. `errorLog` hears of
    /// a database that cannot be reached, and of its return.
    static func router(service: CatalogService, options: Options, accessLog: Logger?,
                       errorLog: Logger = Logger(label: "catalog", factory: { _ in SwiftLogNoOpLogHandler() })) -> Router<CatalogRequestContext> {
        let router = Router(context: CatalogRequestContext.self, options: .autoGenerateHeadEndpoints)
        if let accessLog { router.add(middleware: AccessLogMiddleware(logger: accessLog)) }
        let access = options.access.map(accessControl)
        router.add(middleware: SecurityHeadersMiddleware(corsOrigins: Set(options.corsOrigins.map { $0.lowercased() }),
                                                         privateResponses: access != nil))
        let outages = OutageLog(logger: errorLog)
        router.add(middleware: ErrorMiddleware(outages: outages))
        router.add(middleware: HostHeaderMiddleware())
        if let access {
            router.add(middleware: AccessMiddleware(access: access))
        } else if ServeAccess.listensOnLoopbackOnly(host: options.host) {
            router.add(middleware: LoopbackHostMiddleware(publicHost: options.publicHost))
        }
        router.add(middleware: RequestShapeMiddleware())
        PageRoutes(service: service).add(to: router)
        ItemRoutes(service: service).add(to: router)
        CatalogRoutes(service: service, outages: outages).add(to: router)
        let pages = service.pages
        // Half the connections at most stream events: the rest answer pages, health and sign-ins.
        let events = GenerationEvents(keepAlive: options.eventKeepAlive, maxClients: max(1, options.limits.maxConnections / 2)) {
            try? await service.run { try pages.generation() }
        }
        ChangeRoutes(service: service, events: events, access: access).add(to: router)
        SessionRoutes(access: access).add(to: router)
        GalleryRoutes(service: service, access: access).add(to: router)
        return router
    }

    static func accessControl(_ options: Access) -> AccessControl {
        let publicOrigin = options.publicURL.flatMap(ServeAccess.origin(of:))
        return AccessControl(
            tokens: AccessTokens(file: TokenFile(path: options.tokenFile), report: options.report),
            cookie: SessionCookie(lifetime: options.sessionLifetime, secure: publicOrigin?.hasPrefix("https://") ?? false),
            limiter: FailureLimiter(limit: options.failuresPerMinute, window: options.failureWindow),
            trustedProxies: Set(options.trustedProxies),
            publicOrigin: publicOrigin)
    }
}
