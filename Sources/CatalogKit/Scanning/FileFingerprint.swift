#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit hash of a file's size, first 4 KiB and last 4 KiB: enough to recognise a file moved
/// to another inode (a copy across disks, an editor's save-and-rename) without reading it
/// whole. Eight bytes per step (a multiply-xorshift mix), so it costs about a microsecond.
enum FileFingerprint {
    static let span = 4096

    /// The fingerprint of the open file `fd` of `size` bytes. `head` holds its first bytes, as
    /// many as the caller read: the spans within it are not read again.
    static func compute(fd: Int32, size: Int64, head: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> Int64? {
        var hash = UInt64(bitPattern: size) &* 0x9E37_79B9_7F4A_7C15 ^ 0xCBF2_9CE4_8422_2325
        let ok = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: span / 8) { words -> Bool in
            let raw = UnsafeMutableRawBufferPointer(words)
            for offset in size <= Int64(span) ? [Int64(0)] : [0, max(Int64(span), size - Int64(span))] {
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                let wanted = Int(max(0, min(Int64(span), size - offset)))
                let count: Int
                if offset + Int64(wanted) <= Int64(head.count) {
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: head[Int(offset)..<Int(offset) + wanted]))
                    count = wanted
                } else {
                    count = pread(fd, raw.baseAddress, span, off_t(offset))
                }
                guard count >= 0 else { return false }
                for index in 0..<((count + 7) / 8) {
                    hash = (hash ^ words[index]) &* 0xFF51_AFD7_ED55_8CCD
                    hash ^= hash >> 29
                }
                hash ^= UInt64(count)
            }
            return true
        }
        return ok ? Int64(bitPattern: hash) : nil
    }
}
