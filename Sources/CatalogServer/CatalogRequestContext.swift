import Hummingbird
import NIOCore

/// What every route and middleware gets with a request: Hummingbird's core context plus the
/// peer's address (access control counts failures per client) and the connection.
struct CatalogRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The request's connection: an event stream ends when it closes.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The only body the server reads is a sign-in's.
    var maxUploadSize: Int { Self.uploadLimit }
    /// The largest body a route reads (a sign-in's).
    static let uploadLimit = 4096
}
