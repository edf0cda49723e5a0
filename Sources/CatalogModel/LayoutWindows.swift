import Foundation

/// A layout's windows to store, with what the layout's row records about it: either encoded a
/// range at a time as the store writes them (a 10,000,000-item layout's 200 MB of windows never
/// sit in memory at once), or handed over a segment at a time by a computation still running
/// (`LayoutSegmentStream`), so that the store writes while the layout is computed.
package struct LayoutWindows: Sendable {
    /// Consecutive windows: their bytes one after another, where each ends (counted from the
    /// first one's start), and the smallest and largest item index in each (−1 for both when
    /// no item meets the window).
    package struct Packed: Sendable, Hashable {
        package var bytes: [UInt8]
        package var ends: [Int]
        package var minIndices: [Int]
        package var maxIndices: [Int]

        package init(bytes: [UInt8], ends: [Int], minIndices: [Int], maxIndices: [Int]) {
            precondition(ends.count == minIndices.count && ends.count == maxIndices.count, "one entry per window")
            self.bytes = bytes
            self.ends = ends
            self.minIndices = minIndices
            self.maxIndices = maxIndices
        }
    }

    /// What the layout's row records besides its windows.
    package struct Summary: Sendable, Hashable {
        package var itemCount: Int
        package var contentHeight: Double
        package var header: [UInt8]
        package var computeSeconds: Double

        package init(itemCount: Int, contentHeight: Double, header: [UInt8], computeSeconds: Double) {
            self.itemCount = itemCount
            self.contentHeight = contentHeight
            self.header = header
            self.computeSeconds = computeSeconds
        }
    }

    private enum Source: Sendable {
        case table(count: Int, summary: Summary, pack: @Sendable (Range<Int>) -> Packed)
        case stream(LayoutSegmentStream)
    }

    private let source: Source

    /// `count` windows that `pack` encodes a range at a time.
    package init(count: Int, summary: Summary, pack: @escaping @Sendable (Range<Int>) -> Packed) {
        source = .table(count: count, summary: summary, pack: pack)
    }

    /// The windows `stream` hands over while its layout is computed.
    package init(stream: LayoutSegmentStream) {
        source = .stream(stream)
    }

    /// The number of windows, when known before they are written (not for a stream).
    package var count: Int? {
        if case .table(let count, _, _) = source { return count }
        return nil
    }

    /// What the row records: for a stream, known once its last segment was taken.
    package func summary() throws(LayoutSegmentStream.Stopped) -> Summary {
        switch source {
        case .table(_, let summary, _): return summary
        case .stream(let stream): return try stream.summary()
        }
    }

    /// Windows `range` (within `0..<count`), encoded.
    package func packed(_ range: Range<Int>) -> Packed {
        guard case .table(let count, _, let pack) = source else { preconditionFailure("a stream's windows come as segments") }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "windows \(range) of \(count)")
        return pack(range)
    }

    var stream: LayoutSegmentStream? {
        if case .stream(let stream) = source { return stream }
        return nil
    }
}

/// Segments of a layout handed from the computation that lays it out, as its windows settle,
/// to the store that writes them, on another thread: at most a few waiting. The computation
/// puts each segment (windows from 0, `LayoutSegment.windowsPerSegment` a segment but the last),
/// then `finish`es with the summary, or `fail`s; the store takes them through
/// `LayoutSegment.forEachSegment`, and `stop`s the stream whatever happens to its store, so that
/// the computation never waits for a store that gave up.
package final class LayoutSegmentStream: @unchecked Sendable {
    /// The computation failed or the store stopped: the layout is not to be stored.
    package struct Stopped: Error {}

    private enum Event {
        case segments([LayoutSegment.Ranged])
        case end(LayoutWindows.Summary)
        case failed
    }

    /// Segments go over `batch` at a time: each handoff may wake the store's thread.
    private static let batch = 16
    private let handoff = Handoff<Event>(capacity: 4)
    private let ready = NSCondition()
    private var isReady = false // the store takes, or stopped: under `ready`
    // The producer's only:
    private var next = 0 // the first window not yet put
    private var closed = false // finished or failed
    private var putting: [LayoutSegment.Ranged] = []
    // The consumer's only:
    private var taken: [LayoutSegment.Ranged] = []
    private var takenNext = 0
    private var ended: LayoutWindows.Summary?

    package init() {}

    /// Windows put so far.
    package var windowsPut: Int { next }

    /// Puts the segment of windows `range`, which begins where the one before ended; false once
    /// the store stopped taking (the computation goes on without it).
    @discardableResult
    package func put(_ range: Range<Int>, _ segment: LayoutSegment.Encoded) -> Bool {
        precondition(!closed && range.lowerBound == next && !range.isEmpty && range.count <= LayoutSegment.windowsPerSegment, "segments in order")
        next = range.upperBound
        putting.append((range, segment))
        return putting.count < Self.batch || handOver()
    }

    /// Hands the segments put so far to the store; false once it stopped taking.
    private func handOver() -> Bool {
        defer { putting = [] }
        return putting.isEmpty || handoff.put(.segments(putting))
    }

    /// The last segment was put: the store writes the row's summary.
    package func finish(_ summary: LayoutWindows.Summary) {
        guard !closed else { return }
        closed = true
        if handOver() { handoff.put(.end(summary)) }
    }

    /// The computation failed: the store gives up the layout. Nothing once finished.
    package func fail() {
        guard !closed else { return }
        closed = true
        handoff.put(.failed)
    }

    /// The store is done, stored or not: puts no longer wait.
    package func stop() {
        handoff.cancel()
        markReady()
    }

    /// Waits until the store takes segments or stopped. A computation holding what its store
    /// needs first (a reader of the catalog's pool, of which there are few) waits for this
    /// before taking it: then a store that waits for the computation never waits for what the
    /// computation holds.
    package func waitForStore() {
        ready.lock()
        defer { ready.unlock() }
        while !isReady { ready.wait() }
    }

    private func markReady() {
        ready.lock()
        isReady = true
        ready.broadcast()
        ready.unlock()
    }

    /// The next segment; nil after the last. Throws if the computation failed.
    func take() throws(Stopped) -> LayoutSegment.Ranged? {
        if taken.isEmpty, ended == nil { markReady() } // the first take, before it waits
        while takenNext == taken.count {
            guard ended == nil else { return nil }
            switch handoff.take() {
            case .segments(let segments): (taken, takenNext) = (segments, 0)
            case .end(let summary):
                ended = summary
                return nil
            case .failed: throw Stopped()
            }
        }
        defer { takenNext += 1 }
        return taken[takenNext]
    }

    func summary() throws(Stopped) -> LayoutWindows.Summary {
        guard let ended else { throw Stopped() }
        return ended
    }
}
