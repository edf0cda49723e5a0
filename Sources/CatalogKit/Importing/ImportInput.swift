import CatalogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An import's input (a file, or standard input), read in blocks and handed out in pieces that
/// each end where a record does: memory holds a block or two, whatever the input's length.
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
            guard fd >= 0 else { throw .cannotOpen(path: source, reason: "cannot read the import file: \(SystemError.text())") }
        }
    }

    deinit {
        if fd != STDIN_FILENO { close(fd) }
    }

    /// The input's first block, not consumed (to tell CSV from NDJSON).
    func peek() throws(StoreError) -> [UInt8] {
        while !atEnd && buffer.count < Self.blockSize { try fill() }
        return buffer
    }

    /// The next piece: the input up to just past the last record end that `recordEnd` finds in
    /// what has been read (the rest, at the input's end); nil when everything has been handed out.
    /// `line` is the line the piece starts on, for the message when a record is too long.
    func next(line: Int, recordEnd: ([UInt8]) -> Int) throws(StoreError) -> [UInt8]? {
        while true {
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return buffer
            }
            let before = buffer.count
            while !atEnd && buffer.count < before + Self.blockSize { try fill() }
            if atEnd { continue }
            let end = recordEnd(buffer)
            if end > 0 {
                let piece = Array(buffer[..<end])
                buffer.removeFirst(end)
                return piece
            }
            guard buffer.count <= Self.longestRecord else {
                throw .invalidInput(line: line, reason: "no record ends within \(Self.longestRecord >> 20) MiB (a quote that is never closed?)")
            }
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
            throw .cannotOpen(path: source, reason: "cannot read the import file: \(reason)")
        }
        buffer.removeSubrange((start + count)...)
        if count == 0 { atEnd = true }
    }
}
