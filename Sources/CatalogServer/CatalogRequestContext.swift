import Hummingbird
import NIOCore

/// What every route and middleware gets with a request: Hummingbird's core context plus the
/// peer's address (access control counts failures per client).
struct CatalogRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The only body the server reads is a sign-in's.
    var maxUploadSize: Int { 4096 }
}
