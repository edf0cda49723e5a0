import NIOCore
import Synchronization

/// Every open connection and whether it is idle, shared by the event loops: what lets the
/// `maxConnections`-th connection in by closing the one idle longest, else the one that has
/// been sending a request head longest (a client's head comes in one packet: one that trickles
/// in is slow on purpose, and many of them must not keep every other client out).
final class ConnectionRegistry: Sendable {
    let limit: Int
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    private struct Entry {
        let channel: any Channel
        var idleSince: ContinuousClock.Instant?
        /// When its request head began to arrive, while it has not all arrived.
        var headSince: ContinuousClock.Instant?
    }

    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { entries.withLock { $0.count } }

    /// Registers a new connection (idle). At the limit it closes the longest-idle one to make
    /// room, else the one sending its head longest; false when every connection is busy.
    func admit(_ id: ObjectIdentifier, channel: any Channel) -> Bool {
        let (admitted, evicted): (Bool, (any Channel)?) = entries.withLock { entries in
            var evicted: (any Channel)?
            if entries.count >= limit {
                let idle = entries.compactMap { entry in entry.value.idleSince.map { (key: entry.key, since: $0) } }
                let slow = entries.compactMap { entry in entry.value.headSince.map { (key: entry.key, since: $0) } }
                guard let oldest = idle.min(by: { $0.since < $1.since }) ?? slow.min(by: { $0.since < $1.since }) else { return (false, nil) }
                evicted = entries.removeValue(forKey: oldest.key)?.channel
            }
            entries[id] = Entry(channel: channel, idleSince: .now)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    func setIdle(_ id: ObjectIdentifier, _ idle: Bool) {
        entries.withLock { entries in
            guard entries[id] != nil else { return }
            entries[id]?.idleSince = idle ? .now : nil
        }
    }

    /// Whether the connection's request head is arriving (began, not all there yet).
    func setReadingHead(_ id: ObjectIdentifier, _ reading: Bool) {
        entries.withLock { entries in
            guard entries[id] != nil else { return }
            entries[id]?.headSince = reading ? .now : nil
        }
    }

    func remove(_ id: ObjectIdentifier) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
