/// What a layout's large arrays may ask of the platform before they are first written.
///
/// A table of 10,000,000 items writes about 320 MB of new memory. On Linux, with 4 KiB pages,
/// that is 80,000 first-touch page faults, which cost more than the layout's own arithmetic
/// (BENCHMARKS.md, "The layout engine's compute"). The engine itself uses the standard library
/// only, so it cannot ask the kernel for anything: a program that can installs an advice
/// here (CatalogKit's `HugePages` asks for transparent huge pages with `madvise`), and the
/// engine calls it with each new array of ``threshold`` bytes or more, before writing it.
/// Without an advice (an iOS app, a test), nothing changes.
public enum MemoryAdvice {
    /// Called with the start and length in bytes of a new, unwritten buffer.
    public typealias Advice = @convention(c) (UnsafeMutableRawPointer, Int) -> Void

    /// Arrays smaller than this are not advised: 4 MiB, two huge pages (an array of 1,000,000
    /// items of 8 bytes is advised; smaller layouts are fast without it, their arrays mostly
    /// memory the allocator hands out again).
    public static let threshold = 4 << 20

    /// Written once, at start, before any layout is computed (see ``install(_:)``).
    nonisolated(unsafe) private static var installed: Advice?

    /// Installs `advice` for every layout computed from now on (nil removes it). Call it once,
    /// at start, before layouts are computed on other threads: the engine reads it unlocked.
    public static func install(_ advice: Advice?) {
        installed = advice
    }

    /// Calls the installed advice with `buffer` when it is large enough.
    static func adviseOne<Element>(_ buffer: UnsafeMutableBufferPointer<Element>) {
        guard let advice = installed, let base = buffer.baseAddress else { return }
        let bytes = buffer.count * MemoryLayout<Element>.stride
        if bytes >= threshold { advice(UnsafeMutableRawPointer(base), bytes) }
    }

    /// The same for each of `buffers`.
    static func advise<each Element>(_ buffers: repeat UnsafeMutableBufferPointer<each Element>) {
        repeat adviseOne(each buffers)
    }
}

extension Array {
    /// Makes room for `count` elements in all like `reserveCapacity`, advising new memory
    /// (``MemoryAdvice``) before the elements kept are copied into it.
    mutating func reserveAdvisedCapacity(_ count: Int) {
        guard capacity < count else { return }
        let kept = self
        self = Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            MemoryAdvice.advise(buffer)
            initialized = kept.withUnsafeBufferPointer { kept in
                guard let source = kept.baseAddress, !kept.isEmpty else { return 0 }
                buffer.baseAddress!.initialize(from: source, count: kept.count)
                return kept.count
            }
        }
    }
}
