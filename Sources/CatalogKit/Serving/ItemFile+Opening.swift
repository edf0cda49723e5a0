import CatalogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ItemFile {
    /// Opens the item's file read-only, non-blocking (a FIFO put in its place never hangs the
    /// caller); -1 with `errno` set when it cannot be opened.
    func openForReading() -> Int32 {
        var name = [CChar](repeating: 0, count: path.count + 1)
        for (offset, byte) in path.enumerated() { name[offset] = CChar(bitPattern: byte) }
        return open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    }

    /// Whether `status`, the `fstat` of the file opened at the item's path, is the file the
    /// scan read (same device and inode): not another put at its path since, such as a link
    /// to a file the scan never saw, which must not be sent.
    func isScanned(_ status: stat) -> Bool {
        Int64(bitPattern: UInt64(status.st_dev)) == device && Int64(bitPattern: UInt64(status.st_ino)) == inode
    }

    /// The path for messages (invalid UTF-8 repaired).
    var displayPath: String { String(decoding: path, as: UTF8.self) }
}
