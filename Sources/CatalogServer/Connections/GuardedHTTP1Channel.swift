import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel with a ``ConnectionGuard`` in front of its HTTP codec,
/// ``HTTP1Conformance`` between NIO's HTTP/1 codec and the HTTP types codec, and a
/// ``RequestCycleObserver`` after them.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let registry: ConnectionRegistry

    var responder: HTTPChannelHandler.Responder { http1.responder }

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, registry: ConnectionRegistry) {
        // The decoder's count of fields is the guard's (which answers 431 past it; a request
        // pipelined behind another meets the decoder's bare 400).
        http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestCycleObserver()],
                                                                        httpDecoderConfiguration: .init(maxHeaderFieldCount: limits.maxHeaderFields)))
        self.limits = limits
        self.registry = registry
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, registry: registry), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(HTTP1Conformance(limits: limits), position: .before(try operations.handler(type: HTTP1ToHTTPServerCodec.self)))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 behind the connection limits.
    static func guardedHTTP1(limits: ConnectionLimits) -> HTTPServerBuilder {
        let registry = ConnectionRegistry(limit: limits.maxConnections)
        return .init { responder in GuardedHTTP1Channel(responder: responder, limits: limits, registry: registry) }
    }
}
