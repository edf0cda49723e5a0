import Synchronization

/// What `GET /api/events` streams from: one poller for all clients that looks at the catalog's
/// generation every `pollInterval` (through the page cache: two `stat` calls while nothing was
/// written) and wakes every client when it moves, whoever moved it (this server's watcher or
/// another process); every `keepAlive` it wakes them for a comment. Each client's wake-ups are
/// buffered newest-only: a slow client misses intermediate wake-ups, never slows the poller,
/// and reads the newest generation when it wakes. The poller runs only while clients listen.
final class GenerationEvents: Sendable {
    enum Wake: Sendable { case changed, keepAlive }

    private struct State {
        var generation: Int64?
        var clients: [Int: AsyncStream<Wake>.Continuation] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        /// Places taken by streams whose response has not begun, by ticket, with when.
        var reserved: [Int: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    private let read: @Sendable () async -> Int64?
    let pollInterval: Duration
    let keepAlive: Duration
    /// The most clients streamed to at once: a stream holds its connection for as long as the
    /// client likes, and the connections that are left must serve pages.
    let maxClients: Int

    init(pollInterval: Duration = .milliseconds(100), keepAlive: Duration = .seconds(15), maxClients: Int = .max,
         read: @escaping @Sendable () async -> Int64?) {
        self.pollInterval = pollInterval
        self.keepAlive = keepAlive
        self.maxClients = maxClients
        self.read = read
    }

    /// Takes a place for a stream under `maxClients`, counting the places taken but not yet
    /// streamed to (a stream's response begins after its request's handler returns; the places
    /// of responses that never began go after a minute, longer than the handler's read of the
    /// generation may take); nil when there is none.
    func reserve() -> Int? {
        state.withLock { state in
            let now = ContinuousClock.now
            state.reserved = state.reserved.filter { now - $0.value < .seconds(60) }
            guard state.clients.count + state.reserved.count < maxClients else { return nil }
            let ticket = state.nextID
            state.nextID += 1
            state.reserved[ticket] = now
            return ticket
        }
    }

    /// The newest generation the poller saw.
    var generation: Int64? { state.withLock { $0.generation } }

    /// Gives back a place `reserve` took for a stream that will not begin.
    func release(_ ticket: Int) {
        _ = state.withLock { $0.reserved.removeValue(forKey: ticket) }
    }

    /// A client's wake-ups, until `unsubscribe(id)` or `finish(id)`; `ticket` (from `reserve`) is
    /// the place it takes.
    func subscribe(at generation: Int64, ticket: Int? = nil) -> (id: Int, wakes: AsyncStream<Wake>) {
        let (stream, continuation) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return state.withLock { state in
            if let ticket { state.reserved[ticket] = nil }
            let id = state.nextID
            state.nextID += 1
            state.clients[id] = continuation
            if state.generation == nil {
                state.generation = generation
            } else if let seen = state.generation, seen > generation {
                continuation.yield(.changed) // the poller saw a newer one before this client subscribed
            }
            if state.poller == nil { state.poller = Task { await self.poll() } }
            return (id, stream)
        }
    }

    func unsubscribe(_ id: Int) {
        let (continuation, poller) = state.withLock { state -> (AsyncStream<Wake>.Continuation?, Task<Void, Never>?) in
            let continuation = state.clients.removeValue(forKey: id)
            guard state.clients.isEmpty, let poller = state.poller else { return (continuation, nil) }
            state.poller = nil
            state.generation = nil // unknown while no one polls
            return (continuation, poller)
        }
        continuation?.finish()
        poller?.cancel()
    }

    /// Ends a client's stream (the server shuts down).
    func finish(_ id: Int) {
        _ = state.withLock { $0.clients[id] }?.finish()
    }

    private func poll() async {
        var sinceKeepAlive = Duration.zero
        while !Task.isCancelled {
            do { try await Task.sleep(for: pollInterval) } catch { return }
            sinceKeepAlive += pollInterval
            let now = await read()
            let wake: Wake? = state.withLock { state in
                // Only forward: a poller cancelled while it read may still write what it read.
                if let now, now > state.generation ?? .min {
                    state.generation = now
                    return .changed
                }
                return nil
            }
            let wakeAll = wake ?? (sinceKeepAlive >= keepAlive ? .keepAlive : nil)
            guard let wakeAll else { continue }
            if wakeAll == .keepAlive { sinceKeepAlive = .zero }
            for continuation in state.withLock({ Array($0.clients.values) }) { continuation.yield(wakeAll) }
        }
    }
}
