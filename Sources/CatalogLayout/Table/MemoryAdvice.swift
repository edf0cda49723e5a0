/// What a layout's large arrays may ask of the platform before they are first written.
///
/// A table of 10,000,000 items writes about 320 MB of new memory. On Linux, with 4 KiB pages,
/// that is 80,000 first-touch page faults, which cost more than the layout's own arithmetic
/// (BENCHMARKS.md, "The layout engine's compute"). The engine itself uses the standard library
/// only, so it cannot ask the kernel for anything: a program that can installs an advice
/// here (CatalogKit's `HugePages` asks for transparent huge pages with `madvise`), and the
/// engine calls it with each new array of ``threshold`` bytes or more that a layout computed
/// from its items makes (the placement arrays, room reserved for them, the column lists, and
/// their growth when a layout is extended, in every style), before writing it. Without an advice (an iOS app, a
/// test), nothing changes.
public enum MemoryAdvice {
    /// Called with the start and length in bytes of a new, unwritten buffer.
    public typealias Advice = @convention(c) (UnsafeMutableRawPointer, Int) -> Void

    /// Arrays smaller than this are not advised: 4 MiB, two huge pages (an array of 1,000,000
    /// items of 8 bytes is advised; smaller layouts are fast without it, their arrays mostly
    /// memory the allocator hands out again).
    public static let threshold = 4 << 20

    /// Set by ``install(_:)`` before layouts are computed on other threads: read unlocked.
    nonisolated(unsafe) private static var installed: Advice?

    /// Installs `advice` for every layout computed from now on (nil removes it).
    ///
    /// Call it at start, before layouts are computed on other threads: the engine reads it
    /// unlocked, so installing it while another thread computes a layout is a data race.
    /// (A single-threaded program, such as a benchmark timing the engine both ways, may install
    /// and remove it between its layouts.)
    ///
    /// ```swift
    /// MemoryAdvice.install { start, bytes in
    ///     _ = madvise(start, bytes, MADV_HUGEPAGE) // the start rounded up to a page first
    /// }
    /// ```
    /// - Parameter advice: called with the start and length of each new array of
    ///   ``threshold`` bytes or more, before the engine writes it; nil for none.
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
