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
