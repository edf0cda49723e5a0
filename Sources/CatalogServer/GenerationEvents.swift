import Synchronization

/// What `GET /api/events` streams from: one poller for all clients that looks at the catalog's
/// generation every `pollInterval` (through the page cache: two `stat` calls while nothing was
/// written) and wakes every client when it moves, whoever moved it (this server's watcher or
/// another process); every `keepAlive` it wakes them for a comment. Each client's wake-ups are
/// buffered newest-only: a slow client misses intermediate wake-ups, never slows the poller,
/// and reads the newest generation when it wakes. The poller runs only while clients listen.
/// A generation that moves back (a backup put back with `.restore` under the server) is a
/// move too: clients are woken, and hear the generation the catalog is at.
final class GenerationEvents: Sendable {
    enum Wake: Sendable { case changed, keepAlive }

    private struct Client {
        let continuation: AsyncStream<Wake>.Continuation
        /// The generation the client began with, until a read of the poller's that began after
        /// it did: that read wakes the client if the catalog is at another one.
        var began: Int64?
    }

    private struct State {
        var generation: Int64?
        var clients: [Int: Client] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        /// Which poller may write `generation`: one cancelled while it read may still come back
        /// with what it read, after a new one started.
        var pollerID = 0
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
            state.clients[id] = Client(continuation: continuation, began: generation)
            if state.generation == nil { state.generation = generation }
            if state.poller == nil {
                state.pollerID += 1
                let pollerID = state.pollerID
                state.poller = Task { await self.poll(pollerID) }
            }
            return (id, stream)
        }
    }

    func unsubscribe(_ id: Int) {
        let (continuation, poller) = state.withLock { state -> (AsyncStream<Wake>.Continuation?, Task<Void, Never>?) in
            let continuation = state.clients.removeValue(forKey: id)?.continuation
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
        _ = state.withLock { $0.clients[id] }?.continuation.finish()
    }

    private func poll(_ pollerID: Int) async {
        var sinceKeepAlive = Duration.zero
        while !Task.isCancelled {
            do { try await Task.sleep(for: pollInterval) } catch { return }
            sinceKeepAlive += pollInterval
            // Clients from here on subscribed while the read ran: it may be older than theirs.
            let readBegan = state.withLock { $0.nextID }
            let now = await read()
            let keepingAlive = sinceKeepAlive >= keepAlive
            if keepingAlive { sinceKeepAlive = .zero }
            let wakes = state.withLock { state -> [(AsyncStream<Wake>.Continuation, Wake)] in
                guard state.pollerID == pollerID else { return [] }
                // Unread (the database away): keep-alives still, which hold proxies open and
                // have a stream whose token was revoked meanwhile end.
                guard let now else { return keepingAlive ? state.clients.values.map { ($0.continuation, .keepAlive) } : [] }
                let moved = now != state.generation
                state.generation = now
                var wakes: [(AsyncStream<Wake>.Continuation, Wake)] = []
                // Not a client that subscribed while the read ran: a wake-up has it compare the
                // generation it sent with this read's, which may be older than its own.
                for (id, client) in state.clients where id < readBegan {
                    // A client that began with its own generation is woken if the catalog is at
                    // another; one that began with the poller's, when the poller's moves.
                    let changed = client.began.map { $0 != now } ?? moved
                    state.clients[id]?.began = nil
                    if changed || keepingAlive { wakes.append((client.continuation, changed ? .changed : .keepAlive)) }
                }
                return wakes
            }
            for (continuation, wake) in wakes { continuation.yield(wake) }
        }
    }
}
