/// What one client may take of the server, so that a few cannot stop the others: documented in
/// `catalog serve --help` and the README.
public struct ConnectionLimits: Sendable {
    /// A request line longer than this gets 431 and the connection is closed.
    public var maxRequestLineBytes = 8 * 1024
    /// A request head (line and headers) longer than this gets 431 and the connection is closed.
    public var maxHeadBytes = 32 * 1024
    /// A request head with more header fields than this gets 431 and the connection is closed
    /// (the HTTP decoder's own limit, which closed it with a bare 400).
    public var maxHeaderFields = 1000
    /// Open connections at most. At the limit, a new one takes the place of the connection that
    /// has been idle longest; when none is idle, it is answered 503 and closed.
    public var maxConnections = 512
    /// From a request's first byte to its last: a client that sends its head or body slower
    /// gets 408 and is closed.
    public var requestTimeout: Duration = .seconds(10)
    /// A connection with no request under way is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// A client that reads nothing of a response for this long is closed.
    public var writeTimeout: Duration = .seconds(60)

    public init() {}
}
