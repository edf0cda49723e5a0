import CatalogModel
import ImageProbe
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An item's image file, opened and checked to be the file the catalog scanned (same device,
/// inode, size and modification time): what `GET /api/items/{id}/original` sends. Only items' files are ever
/// opened, found by id; nothing a client sends becomes a path.
public final class OriginalFile: Sendable {
    /// Why an original cannot be sent.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case noSuchItem(Int64)
        case imported(Int64)
        case changed(Int64)
        case gone(Int64)
        /// The file is there but this process may not read it, or reading failed (`errno`).
        case cannotOpen(Int64, errno: Int32)

        public var description: String {
            switch self {
            case .noSuchItem(let id): "there is no item with id \(id)"
            case .imported(let id): "item \(id) was imported: it has no file here"
            case .changed(let id): "the file of item \(id) changed since it was scanned: run `catalog scan` again"
            case .gone(let id): "the file of item \(id) is gone since it was scanned"
            case .cannotOpen(let id, let code): "the file of item \(id) cannot be opened by the server (\(SystemError.text(code)))"
            }
        }
    }

    private let descriptor: Int32
    public let size: Int64
    /// Seconds since 1970 (the scanned modification time).
    public let modified: Int64
    public let contentType: String
    /// The file's name (its path's last part; bytes that are not UTF-8 shown as U+FFFD).
    public let fileName: String
    /// From the path, size and modification time: changes whenever the file does.
    public let etag: String

    init(catalog: Catalog, id: Int64) throws {
        guard let file = try catalog.store.file(ofItem: id) else {
            throw try catalog.item(id: id) == nil ? Problem.noSuchItem(id) : Problem.imported(id)
        }
        let fd = file.openForReading()
        guard fd >= 0 else { throw ItemFile.openFailedAsGone ? Problem.gone(id) : Problem.cannotOpen(id, errno: errno) }
        var status = stat()
        let mtime = fstat(fd, &status) == 0 ? WallClock.nanoseconds(status.st_mtim) : -1
        guard status.st_mode & S_IFMT == S_IFREG, file.isScanned(status), Int64(status.st_size) == file.size,
              mtime == file.mtimeNanoseconds else {
            close(fd)
            throw Problem.changed(id)
        }
        descriptor = fd
        size = file.size
        modified = file.mtimeNanoseconds / 1_000_000_000
        contentType = ImageFormat(rawValue: file.format ?? "")?.mediaType ?? "application/octet-stream"
        fileName = String(decoding: file.path.split(separator: UInt8(ascii: "/")).last ?? Data(), as: UTF8.self)
        var hash = UInt64(bitPattern: file.size) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: file.mtimeNanoseconds)
        for byte in file.path { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        etag = "\"\(String(hash, radix: 16))-\(String(file.size, radix: 16))\""
    }

    deinit { close(descriptor) }

    /// The bytes of `range` (offsets within the file).
    public func read(_ range: Range<Int64>) throws -> [UInt8] {
        let count = Int(range.count)
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let read = FileReads.read(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: range.lowerBound)
            guard read.count == count else {
                throw StoreError.cannotOpen(path: "item file", reason: read.error.map { SystemError.text($0) } ?? "shorter than scanned")
            }
            initialized = count
        }
    }
}

extension Catalog {
    /// Opens item `id`'s file if it is the one scanned; throws `OriginalFile.Problem` if not.
    public func original(ofItem id: Int64) throws -> OriginalFile {
        try OriginalFile(catalog: self, id: id)
    }

    /// How many items there are.
    public func itemCount() throws(StoreError) -> Int {
        try store.itemCount()
    }
}
