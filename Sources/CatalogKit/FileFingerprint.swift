#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit FNV-1a hash of a file's size, first 4 KiB and last 4 KiB: enough to recognise a
/// file moved to another inode (a copy across disks, an editor's save-and-rename) without
/// reading it whole.
enum FileFingerprint {
    static let span = 4096

    static func compute(fd: Int32, size: Int64) -> Int64? {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        withUnsafeBytes(of: size.littleEndian) { $0.forEach(mix) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: span) { buffer -> Int64? in
            for offset in size <= Int64(span) ? [Int64(0)] : [0, max(Int64(span), size - Int64(span))] {
                let count = pread(fd, buffer.baseAddress, span, off_t(offset))
                guard count >= 0 else { return nil }
                for index in 0..<count { mix(buffer[index]) }
            }
            return Int64(bitPattern: hash)
        }
    }
}
