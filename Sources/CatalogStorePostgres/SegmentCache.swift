import Synchronization

/// Stored layouts' windows this process has read, a segment at a time: a page that misses a
/// server's page cache then reads only its items' keys from the database, one statement instead
/// of two, and no blob. A layout's segments at one generation never change (a layout stored
/// again takes a new id; one extended in place, a new generation), so a segment stays until the
/// budget pushes it out, oldest first; one of a layout or generation no longer asked for is
/// never read again and goes the same way (so each write to the catalog leaves the segments
/// kept before it unused, and pages read them again).
///
/// That holds along one database's history. Everything kept goes when the store's listener
/// connects again: the database may have been dropped and made again, or failed over to a
/// replica that had not seen the last commits, and the same layout id and generation may now
/// hold other windows. A database restored under a running server (its listener still
/// connected) is not noticed: restart the servers after a restore, as their page caches need.
final class SegmentCache: Sendable {
    struct Key: Hashable {
        var layoutID: Int64
        var generation: Int64
        /// The segment's first window over `LayoutSegment.windowsPerSegment`.
        var segment: Int
    }

    private struct State {
        var segments: [Key: [[UInt8]]] = [:]
        /// Keys in the order they were kept; those before `head` are gone.
        var order: [Key] = []
        var head = 0
        var bytes = 0
        /// The listener's epoch the segments were read in.
        var epoch: Int64 = -1

        /// Forgets everything when `epoch` is newer; false when it is older (a read that began
        /// before the listener connected again: nothing of it is kept or answered).
        mutating func follow(epoch: Int64) -> Bool {
            if epoch > self.epoch { self = State(epoch: epoch) }
            return epoch == self.epoch
        }
    }

    private let state = Mutex(State())
    /// Bytes of windows kept at most (with a few words per window for its array).
    let budget: Int
    static let overheadPerWindow = 48

    /// 256 MB holds about every segment of a 2-column layout of 10,000,000 items (22 bytes an item).
    init(budget: Int = 256 << 20) {
        self.budget = budget
    }

    static func size(_ windows: [[UInt8]]) -> Int {
        windows.reduce(0) { $0 + $1.count + overheadPerWindow }
    }

    /// Windows `range` of a layout at `generation`, when every segment that holds them is kept
    /// and was read in the listener's `epoch`.
    func windows(epoch: Int64, layoutID: Int64, generation: Int64, range: ClosedRange<Int>, perSegment: Int) -> [[UInt8]]? {
        state.withLock { state -> [[UInt8]]? in
            guard state.follow(epoch: epoch) else { return nil }
            var windows: [[UInt8]] = []
            windows.reserveCapacity(range.count)
            for segment in (range.lowerBound / perSegment)...(range.upperBound / perSegment) {
                guard let held = state.segments[Key(layoutID: layoutID, generation: generation, segment: segment)] else { return nil }
                windows += PostgresSnapshot.windows(range, of: held, first: segment * perSegment)
            }
            return windows.count == range.count ? windows : nil
        }
    }

    /// Keeps a segment's windows (all of them, from its first), read in the listener's `epoch`,
    /// pushing out the oldest past the budget.
    func keep(_ windows: [[UInt8]], epoch: Int64, layoutID: Int64, generation: Int64, segment: Int) {
        let key = Key(layoutID: layoutID, generation: generation, segment: segment)
        let size = Self.size(windows)
        guard size <= budget else { return }
        state.withLock { state in
            guard state.follow(epoch: epoch), state.segments[key] == nil else { return }
            while state.bytes + size > budget, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let gone = state.segments.removeValue(forKey: oldest) { state.bytes -= Self.size(gone) }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.segments[key] = windows
            state.order.append(key)
            state.bytes += size
        }
    }

    /// Bytes kept (for tests).
    var bytes: Int { state.withLock { $0.bytes } }
}
