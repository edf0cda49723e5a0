import NIOCore
import NIOHTTPTypes

/// After the HTTP codec: tells the connection's ``ConnectionGuard`` when a request's head and
/// end arrive and when its response ends, which bytes alone cannot say.
final class RequestCycleObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var connection: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        connection = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: connection?.requestHeadReceived()
        case .end: connection?.requestReceived()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { connection?.responseEnded() }
        context.write(data, promise: promise)
    }
}
