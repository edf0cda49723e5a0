import Dispatch
public import ImageProbe

/// Probes many files on all cores, in bounded slices, keeping the input order.
public struct ProbeBatch: Sendable {
    /// One file's outcome: an image, `nil` for an unsupported format, or why it failed.
    public typealias Outcome = Result<ImageInfo?, ImageProbeError>

    /// Files probed per slice: what memory holds at once, whatever the input's length.
    public var sliceSize: Int

    public init(sliceSize: Int = 4096) {
        self.sliceSize = max(1, sliceSize)
    }

    /// Probes `paths`, calling `handle` with each slice's results, in input order.
    public func run(_ paths: [String], handle: (ArraySlice<String>, [Outcome]) -> Void) {
        var start = paths.startIndex
        while start < paths.endIndex {
            let slice = paths[start..<min(start + sliceSize, paths.endIndex)]
            handle(slice, Self.probe(slice))
            start = slice.endIndex
        }
    }

    private static func probe(_ slice: ArraySlice<String>) -> [Outcome] {
        let results = [Outcome](unsafeUninitializedCapacity: slice.count) { buffer, count in
            let base = buffer.baseAddress!
            nonisolated(unsafe) let output = base
            DispatchQueue.concurrentPerform(iterations: slice.count) { offset in
                let path = slice[slice.startIndex + offset]
                let outcome = Outcome { () throws(ImageProbeError) in try ImageProbe.probe(path: path) }
                (output + offset).initialize(to: outcome)
            }
            count = slice.count
        }
        return results
    }
}
