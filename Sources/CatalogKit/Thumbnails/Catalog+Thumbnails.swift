import CatalogModel
import Foundation
import ImageProbe
import Thumbnailer
#if canImport(Glibc)
import Glibc
#endif

extension Catalog {
    /// The thumbnail of item `id` fitting a `size` box: from the cache while the file is the
    /// same (same device, inode, size and modification time as now), else made from the file
    /// and cached.
    public func thumbnail(item id: Int64, size: Int, cache: ThumbnailCache,
                          quality: Int = Thumbnailer.defaultQuality) throws -> CachedThumbnail {
        guard ThumbnailCache.sizes.contains(size) else { throw ThumbnailProblem.unsupportedSize(size) }
        guard let file = try store.file(ofItem: id) else {
            throw try item(id: id) == nil ? ThumbnailProblem.noSuchItem(id) : ThumbnailProblem.imported(id)
        }
        return try Self.thumbnail(of: file, size: size, cache: cache, quality: quality, reuse: true)
    }

    /// Opens the item's file and keys the thumbnail by what `fstat` says of that open file (so
    /// a file changed since the scan gets a thumbnail of what it is now, never a stale one);
    /// reads it, takes the orientation from its header, reduces and caches.
    static func thumbnail(of file: ItemFile, size: Int, cache: ThumbnailCache, quality: Int,
                          reuse: Bool) throws(ThumbnailProblem) -> CachedThumbnail {
        let path = file.displayPath
        let fd = file.openForReading()
        guard fd >= 0 else { throw .gone(file.itemID, path: path, reason: SystemError.text()) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .gone(file.itemID, path: path, reason: SystemError.text()) }
        // A FIFO, a device or a link to one: the scan stored only regular files, so another
        // file is at its path (404, as the original says), not an image that cannot be read.
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .gone(file.itemID, path: path, reason: "another file is at its path since the scan (not a regular file)")
        }
        // The file the scan read, changed in place or not; never another put at its path (a
        // link to a file the scan never saw).
        guard file.isScanned(status) else {
            throw .gone(file.itemID, path: path, reason: "another file is at its path since the scan")
        }
        let key = ThumbnailKey(itemID: file.itemID, version: ThumbnailKey.version(of: status), size: size)
        if reuse, let cached = cache.read(key) { return cached }
        do {
            let bytes = try Thumbnailer.read(fileDescriptor: fd, size: Int(status.st_size))
            // The header as it is now: a file edited since the scan may have turned.
            let orientation = (try? ImageProbe.probe(bytes: bytes))??.orientation.rawValue ?? file.orientation
            let thumbnail = try Thumbnailer.thumbnail(bytes: bytes, size: size, orientation: orientation, quality: quality)
            do {
                return try cache.write(thumbnail, for: key)
            } catch {
                return CachedThumbnail(key: key, format: thumbnail.format, bytes: thumbnail.bytes, made: true, notCached: error)
            }
        } catch {
            throw .unusable(file.itemID, path: path, error)
        }
    }
}

extension ThumbnailKey {
    /// The version of the file `fstat` describes.
    static func version(of status: stat) -> String {
        let mtime = WallClock.nanoseconds(status.st_mtim)
        return version(device: Int64(bitPattern: UInt64(status.st_dev)), inode: Int64(bitPattern: UInt64(status.st_ino)),
                       size: Int64(status.st_size), mtimeNanoseconds: mtime)
    }
}
