import CatalogModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ItemFile {
    /// Opens the item's file read-only, non-blocking (a FIFO put in its place never hangs the
    /// caller); -1 with `errno` set when it cannot be opened. A path longer than the system
    /// takes in one call (PATH_MAX, 4,096 bytes: folders nested deep, as the scan walks them
    /// one at a time) is opened a folder at a time.
    func openForReading() -> Int32 {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        var name = [CChar](repeating: 0, count: path.count + 1)
        for (offset, byte) in path.enumerated() { name[offset] = CChar(bitPattern: byte) }
        let fd = open(name, flags)
        guard fd < 0, errno == ENAMETOOLONG, path.first == 47 else { return fd }
        var folder = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let parts = path.split(separator: 47, omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            guard folder >= 0 else { return -1 }
            let component = part.map { CChar(bitPattern: $0) } + [0]
            let next = openat(folder, component, index == parts.count - 1 ? flags : O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            let error = errno
            close(folder)
            errno = error
            folder = next
        }
        return folder
    }

    /// Whether opening failed because the file is not there (or a folder on its path is not):
    /// from `errno` after `openForReading` returned -1. Anything else (permissions, I/O) is not
    /// "gone", and a new scan would not change it.
    static var openFailedAsGone: Bool { errno == ENOENT || errno == ENOTDIR }

    /// Whether `status`, the `fstat` of the file opened at the item's path, is the file the
    /// scan read (same device and inode): not another put at its path since, such as a link
    /// to a file the scan never saw, which must not be sent.
    func isScanned(_ status: stat) -> Bool {
        Int64(bitPattern: UInt64(status.st_dev)) == device && Int64(bitPattern: UInt64(status.st_ino)) == inode
    }

    /// The path for messages (invalid UTF-8 repaired).
    var displayPath: String { String(decoding: path, as: UTF8.self) }
}
