import CatalogModel
import Thumbnailer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an item has no thumbnail. Each case says what the user can do about it.
public enum ThumbnailProblem: Error, Sendable, Hashable, CustomStringConvertible {
    case noSuchItem(Int64)
    /// An imported item: it has no file here.
    case imported(Int64)
    /// The item's file cannot be opened any more (moved, deleted, unmounted).
    case gone(Int64, path: String, reason: String)
    /// The file is there but cannot be made into a thumbnail (truncated, corrupt, too large...).
    case unusable(Int64, path: String, ThumbnailError)
    /// A box the cache does not keep.
    case unsupportedSize(Int)
    /// The cache folder cannot be written.
    case cacheUnwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .noSuchItem(let id): "there is no item with id \(id)"
        case .imported(let id): "item \(id) was imported: it has no file here, so no thumbnail"
        case .gone(let id, let path, let reason):
            reason == SystemError.text(EACCES) || reason == SystemError.text(EPERM)
                ? "the file of item \(id) cannot be opened (\(reason)): \(path); this user may not read it"
                : "the file of item \(id) cannot be opened (\(reason)): \(path); run `catalog scan` again"
        case .unusable(let id, let path, let error): "item \(id): \(error): \(path)"
        case .unsupportedSize(let size):
            "thumbnail size \(size) is not one of \(ThumbnailCache.sizes.map(String.init).joined(separator: ", "))"
        case .cacheUnwritable(let path, let reason): "cannot write the thumbnail cache at \(path): \(reason)"
        }
    }
}
