import CatalogModel
import Dispatch
import ImageProbe
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `catalog probe`: probes many files on all cores, in bounded slices, keeping the input order.
public struct ProbeBatch: Sendable {
    /// Files probed per slice: what memory holds at once, whatever the input's length.
    public var sliceSize: Int

    public init(sliceSize: Int = 4096) {
        self.sliceSize = max(1, sliceSize)
    }

    /// Probes `paths`, calling `handle` with each slice's outcomes (an image's facts,
    /// unsupported, or why it failed), in input order.
    public func run(_ paths: [String], handle: (ArraySlice<String>, [FileOutcome]) -> Void) {
        var start = paths.startIndex
        while start < paths.endIndex {
            let slice = paths[start..<min(start + sliceSize, paths.endIndex)]
            handle(slice, Self.probe(slice))
            start = slice.endIndex
        }
    }

    private static func probe(_ slice: ArraySlice<String>) -> [FileOutcome] {
        [FileOutcome](unsafeUninitializedCapacity: slice.count) { buffer, count in
            nonisolated(unsafe) let output = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: slice.count) { offset in
                (output + offset).initialize(to: probe(path: slice[slice.startIndex + offset]))
            }
            count = slice.count
        }
    }

    private static func probe(path: String) -> FileOutcome {
        do {
            guard let info = try ImageProbe.probe(path: path) else { return .unsupported }
            var status = stat()
            let modified = stat(path, &status) == 0 ? Int(status.st_mtim.tv_sec) : 0
            return .image(ImageFacts(info, modifiedAt: Timestamps.iso8601(secondsSince1970: modified)))
        } catch {
            return .failed(error.description)
        }
    }
}

extension ImageFacts {
    /// What the catalog keeps of a probed image.
    init(_ image: ImageInfo, modifiedAt: String) {
        self.init(format: image.format.rawValue, pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight,
                  orientation: image.orientation.rawValue, width: image.displayWidth, height: image.displayHeight,
                  bytes: image.byteSize, captureDate: image.captureDate?.description, modifiedAt: modifiedAt)
    }
}
