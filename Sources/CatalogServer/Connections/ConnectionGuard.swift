import NIOCore

/// The first handler of every connection, on the bytes as they arrive, before HTTP parsing: it
/// bounds the request line and head (431), times out clients that send a request too slowly
/// (408), that sit idle, or that stop reading a response, and admits the connection through the
/// ``ConnectionRegistry``. It also holds back a close from the handlers after it until the
/// bytes written before it are on the socket (see `close(context:mode:promise:)`).
/// ``RequestCycleObserver``, after the HTTP codec, tells it where requests and responses begin
/// and end.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// No request under way: counting the next head's bytes; `tail` holds the last four.
        case awaitingHead(seen: Int, lineEnded: Bool, tail: UInt32, fields: Int)
        /// A head was read: until its request has fully arrived and its response has ended,
        /// bytes are the body's (or a pipelined request's), not counted.
        case busy
        case closing
    }

    let limits: ConnectionLimits
    let registry: ConnectionRegistry
    private var state = State.awaitingHead(seen: 0, lineEnded: false, tail: 0, fields: 0)
    /// Requests whose last byte has not arrived, and requests whose response has not ended: the
    /// connection is idle again only when both are none (a response may end before its request
    /// does, as a 401 or 413 does before the body is read).
    private var requestsOpen = 0
    private var responsesOpen = 0
    private var requestTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?
    private var writeTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var admitted = false
    /// Writes not on the socket yet, and a close asked for meanwhile.
    private var writesUnfinished = 0
    private var heldClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?
    /// The client closed its side (Hummingbird allows half-closed connections), and whether
    /// the response under way ends only when the client goes (an event stream).
    private var peerClosed = false
    private var closesWithPeer = false

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    private var id: ObjectIdentifier { ObjectIdentifier(self) }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { admit(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            peerClosed = true
            if closesWithPeer { context.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// For a response that ends only when the client goes (an event stream): the connection
    /// is closed as soon as the client closes its side, rather than at the next write that
    /// fails (a keep-alive or two later), which held the stream's place meanwhile. On the
    /// channel's event loop.
    func closeWithPeer() {
        closesWithPeer = true
        if peerClosed { context?.close(promise: nil) }
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        guard registry.admit(id, channel: context.channel) else {
            refuse(context, status: "503 Service Unavailable", message: "the server has too many connections open: try again", retryAfter: 1)
            return
        }
        becomeIdle(context)
    }

    private func finish() {
        requestTimer?.cancel()
        idleTimer?.cancel()
        writeTimer?.cancel()
        registry.remove(id)
        context = nil
        if let held = heldClose {
            heldClose = nil
            held.promise?.fail(ChannelError.alreadyClosed)
        }
    }

    // MARK: Closing after the last bytes

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        writesUnfinished += 1
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [weak self] _ in
            guard let self else { return }
            self.writesUnfinished -= 1
            if self.writesUnfinished == 0 { self.closeHeld() }
        }
        context.write(data, promise: written)
    }

    /// A close from the handlers after this one waits for the writes before it: in a graceful
    /// shutdown, Hummingbird (HTTPConnectionStateHandler) closes a connection as soon as it
    /// writes its last response's end, and the bytes a slow client had not taken yet were
    /// dropped with a 200 already sent (a download cut short by a restart). The closes of this
    /// handler's own timers (a client that reads nothing) go to the socket at once.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, writesUnfinished > 0 else { return context.close(mode: mode, promise: promise) }
        guard let held = heldClose else {
            heldClose = (mode, promise)
            // Not for ever: a client that stopped reading while the channel stays writable
            // (less than the high-water mark pending) would keep it open, and a graceful stop
            // waiting for it.
            context.eventLoop.scheduleTask(in: .init(limits.writeTimeout)) { [weak self] in self?.closeHeld() }
            return
        }
        // A second close while one is held: it completes with the first.
        if let first = held.promise {
            if let promise { first.futureResult.cascade(to: promise) }
        } else {
            heldClose = (mode, promise)
        }
    }

    /// Sends on the close held back, if one is.
    private func closeHeld() {
        guard let held = heldClose, let context else { return }
        heldClose = nil
        context.close(mode: held.mode, promise: held.promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .awaitingHead(var seen, var lineEnded, var tail, var fields) = state else {
            if case .busy = state { context.fireChannelRead(data) } // .closing: dropped
            return
        }
        let buffer = unwrapInboundIn(data)
        if seen == 0, buffer.readableBytes > 0 { startRequest(context) }
        var complete = false
        for byte in buffer.readableBytesView {
            seen += 1
            tail = tail << 8 | UInt32(byte)
            let inFields = lineEnded
            if !lineEnded, tail & 0xFF == 0x0A, seen > 2 { lineEnded = true } // a CRLF or LF, past any blank line before it
            if !lineEnded, seen > limits.maxRequestLineBytes {
                return refuse(context, status: "431 Request Header Fields Too Large",
                              message: "the request line is longer than \(limits.maxRequestLineBytes) bytes")
            }
            if tail == 0x0D0A_0D0A || tail & 0xFFFF == 0x0A0A {
                complete = true
                break
            }
            // As many fields as the HTTP decoder takes: past them it closed with a bare 400.
            if inFields, byte == 0x0A {
                fields += 1
                if fields > limits.maxHeaderFields {
                    return refuse(context, status: "431 Request Header Fields Too Large",
                                  message: "the request has more than \(limits.maxHeaderFields) header fields")
                }
            }
            if seen > limits.maxHeadBytes {
                return refuse(context, status: "431 Request Header Fields Too Large",
                              message: "the request's headers are longer than \(limits.maxHeadBytes) bytes")
            }
        }
        state = complete ? .busy : .awaitingHead(seen: seen, lineEnded: lineEnded, tail: tail, fields: fields)
        if complete { registry.setReadingHead(id, false) }
        context.fireChannelRead(data)
    }

    // MARK: What RequestCycleObserver reports

    func requestHeadReceived() {
        requestsOpen += 1
        responsesOpen += 1
        if case .awaitingHead = state {
            state = .busy
            registry.setReadingHead(id, false)
        }
    }

    /// The request's last byte arrived: it is no longer slow.
    func requestReceived() {
        requestsOpen = max(0, requestsOpen - 1)
        if requestsOpen == 0 {
            requestTimer?.cancel()
            requestTimer = nil
        }
        becomeIdleIfDone()
    }

    func responseEnded() {
        responsesOpen = max(0, responsesOpen - 1)
        closesWithPeer = false // the stream ended (a revoked token): the next request is an ordinary one
        becomeIdleIfDone()
    }

    private func becomeIdleIfDone() {
        guard requestsOpen == 0, responsesOpen == 0, case .busy = state, let context else { return }
        state = .awaitingHead(seen: 0, lineEnded: false, tail: 0, fields: 0)
        becomeIdle(context)
    }

    // MARK: Timers

    private func startRequest(_ context: ChannelHandlerContext) {
        idleTimer?.cancel()
        registry.setIdle(id, false)
        registry.setReadingHead(id, true)
        requestTimer?.cancel()
        requestTimer = context.eventLoop.scheduleTask(in: .init(limits.requestTimeout)) { [weak self] in
            guard let self, let context = self.context else { return }
            // Refused before its body arrived (a 400, a 413): answered once, and closed now
            // without a second response (a 408 ten seconds after the 413).
            if self.responsesOpen == 0, self.requestsOpen == 0 {
                self.refuse(context, status: "408 Request Timeout",
                            message: "the request took longer than \(limits.requestTimeout.components.seconds) s to arrive")
            } else {
                self.state = .closing
                context.close(promise: nil)
            }
        }
    }

    private func becomeIdle(_ context: ChannelHandlerContext) {
        registry.setIdle(id, true)
        idleTimer?.cancel()
        idleTimer = context.eventLoop.scheduleTask(in: .init(limits.idleTimeout)) { [weak self] in
            guard let self, case .awaitingHead(seen: 0, _, _, _) = self.state, let context = self.context else { return }
            self.state = .closing
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeTimer?.cancel()
            writeTimer = nil
        } else if writeTimer == nil {
            writeTimer = context.eventLoop.scheduleTask(in: .init(limits.writeTimeout)) { [weak self] in
                guard let self, let context = self.context, !context.channel.isWritable else { return }
                self.state = .closing
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Answers with `status` and the JSON error body, straight to the socket, and closes.
    private func refuse(_ context: ChannelHandlerContext, status: String, message: String, retryAfter: Int? = nil) {
        state = .closing
        requestTimer?.cancel()
        idleTimer?.cancel()
        let body = APIError(status: Int(status.prefix(3)) ?? 400, message: message).json
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\n"
            + (retryAfter.map { "Retry-After: \($0)\r\n" } ?? "") + "Content-Length: \(body.utf8.count)\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + body))).whenComplete { _ in context.close(promise: nil) }
    }
}
