#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads of an open file's bytes at an offset, with `pread` (the descriptor's offset unchanged).
package enum FileReads {
    /// Reads up to `buffer.count` bytes of `fd` from `offset` into `buffer`, reading again after
    /// an interrupted or short read; how many it read (fewer at the file's end), and the error
    /// number of a read that failed, if one did (what it had read before stays counted).
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> (count: Int, error: Int32?) {
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return (done, errno) }
            if got == 0 { break }
            done += got
        }
        return (done, nil)
    }
}
