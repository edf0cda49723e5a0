import CatalogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An import's input (a file, or standard input), read in blocks and handed to a reader that
/// takes the whole records in them: memory holds a block or two, whatever the input's length.
final class ImportInput {
    static let blockSize = 1 << 20
    /// Past this without a record's end (an unclosed quote, a file that is not line-based), the
    /// import stops instead of reading the rest of the input into memory.
    static let longestRecord = 64 << 20

    let source: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var atEnd = false

    /// Opens `source`, a path or "-" for standard input.
    init(source: String) throws(StoreError) {
        self.source = source
        if source == "-" {
            fd = STDIN_FILENO
        } else {
            fd = open(source, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotRead(path: source, reason: SystemError.text()) }
        }
    }

    deinit {
        if fd != STDIN_FILENO { close(fd) }
    }

    /// Whether the input is a regular file (which can be opened and read again; a pipe cannot).
    var isRegularFile: Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// The input's first block, not consumed (to tell CSV from NDJSON).
    func peek() throws(StoreError) -> [UInt8] {
        while !atEnd && buffer.count < Self.blockSize { try fill() }
        return buffer
    }

    /// Hands `read` the input not read yet, a block more each time, and whether that is all of
    /// it; `read` returns how many bytes it read (whole records), which are dropped. Past
    /// `longestRecord` bytes with no record read, throws, naming the line `line` gives.
    /// A record longer than a block is read from its start again with each more: the more is
    /// as much as is held (up to just past `longestRecord`), so a record of n bytes is read
    /// about twice over, not once per MiB of it (a 66 MiB field took 55 s to refuse).
    func readRecords(line: () -> Int, _ read: ([UInt8], _ atEnd: Bool) throws(StoreError) -> Int) throws(StoreError) {
        var more = Self.blockSize
        while true {
            let before = buffer.count
            while !atEnd && buffer.count < before + more { try fill() }
            let used = try read(buffer, atEnd)
            if atEnd { return }
            if used == 0 && buffer.count > Self.longestRecord {
                throw .invalidInput(line: line(), reason: "no record ends within \(Self.longestRecord >> 20) MiB: a line longer than that, or a quote that is never closed")
            }
            buffer.removeFirst(used)
            more = used > 0 ? Self.blockSize : max(Self.blockSize, min(buffer.count, Self.longestRecord + 1 - buffer.count))
        }
    }

    private func fill() throws(StoreError) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 1 << 16))
        let count = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress! + start, 1 << 16) }
        if count < 0 && errno == EINTR {
            buffer.removeSubrange(start...)
            return
        }
        guard count >= 0 else {
            let reason = SystemError.text()
            buffer.removeSubrange(start...)
            throw .cannotRead(path: source, reason: reason)
        }
        buffer.removeSubrange((start + count)...)
        if count == 0 { atEnd = true }
    }
}
