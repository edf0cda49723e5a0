import NIOCore
import NIOHTTP1

/// Before the HTTP types codec, which drops the request's version: answers an HTTP/1.0 request
/// as HTTP/1.0 and says in `Connection` whether the connection stays open.
///
/// - An HTTP/1.0 response is never chunked (RFC 9112 §6.1): its version goes down to 1.0, so
///   NIO's encoder sends a body of unknown length (the event stream) unframed, and the
///   connection is closed after it.
/// - An HTTP/1.0 request without `Connection: keep-alive` is the connection's last (§9.3): the
///   server closed only at the idle timeout, and a client reading to the end waited for it.
///   The request is handed on with `Connection: close`, which ends the server's loop.
/// - Every response on a connection that closes after it says `Connection: close` (§9.6), and
///   one kept open for an HTTP/1.0 client says `Connection: keep-alive`.
final class HTTP10Framing: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What each request waiting for its response asked for, oldest first (requests pipelined).
    private var waiting: [(version: HTTPVersion, keepAlive: Bool)] = []
    /// Set by a response head whose connection closes after its end.
    private var closeAfterEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let keepAlive = head.isKeepAlive
        waiting.append((head.version, keepAlive))
        if !keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            let request = waiting.isEmpty ? (version: HTTPVersion.http1_1, keepAlive: true) : waiting.removeFirst()
            var keepAlive = request.keepAlive
            if request.version.major == 1 && request.version.minor == 0 {
                head.version = .http1_0
                // Without a length the body ends where the connection does.
                if !head.headers.contains(name: "content-length") { keepAlive = false }
            }
            head.headers.remove(name: "connection")
            if !keepAlive {
                head.headers.add(name: "connection", value: "close")
            } else if head.version == .http1_0 {
                head.headers.add(name: "connection", value: "keep-alive")
            }
            closeAfterEnd = !keepAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterEnd:
            closeAfterEnd = false
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            written.futureResult.whenComplete { _ in context.close(promise: nil) }
            written.futureResult.cascade(to: promise)
        default:
            context.write(data, promise: promise)
        }
    }
}
