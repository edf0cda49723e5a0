import CatalogModel
import Foundation
import Thumbnailer

/// Which thumbnail: an item, the identity of its file (device, inode, size, modification time,
/// hashed into `version`), and the box. A changed file has another version, so its old
/// thumbnail is never found again.
public struct ThumbnailKey: Sendable, Hashable {
    public var itemID: Int64
    /// 16 hex digits: FNV-1a over the file's device, inode, size and modification time.
    public var version: String
    public var size: Int

    public init(itemID: Int64, version: String, size: Int) {
        self.itemID = itemID
        self.version = version
        self.size = size
    }

    /// The version of a file with this identity.
    public static func version(device: Int64, inode: Int64, size: Int64, mtimeNanoseconds: Int64) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for value in [device, inode, size, mtimeNanoseconds] {
            for shift in stride(from: 0, to: 64, by: 8) { hash = (hash ^ UInt64(truncatingIfNeeded: value >> shift) & 0xFF) &* 0x0000_0100_0000_01B3 }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The version of a file with this identity.
    public static func version(of file: FileIdentity) -> String {
        version(device: file.device, inode: file.inode, size: file.size, mtimeNanoseconds: file.mtimeNanoseconds)
    }

    /// An HTTP entity tag: the key, which changes whenever the thumbnail's bytes could.
    public var etag: String { "\"\(itemID)-\(version)-\(size)\"" }
}

/// A thumbnail as the cache holds it.
public struct CachedThumbnail: Sendable, Hashable {
    public var key: ThumbnailKey
    public var format: ThumbnailFormat
    public var bytes: [UInt8]
    /// Whether the call that returned it made it (false: read from the cache).
    public var made = false
    /// Why one that was made is not in the cache (a full disk, a cache folder that cannot be
    /// written): the thumbnail is good, only the next request makes it again.
    public var notCached: ThumbnailProblem? = nil
}

/// Thumbnails on disk, under `$XDG_CACHE_HOME/catalog/thumbnails/` (else
/// `~/.cache/catalog/thumbnails/`): `<size>/<shard>/<item id>-<version>` where the shard is the
/// item id's last two hex digits (at most a few thousand files to a folder at ten million
/// items). Entries are written to a temporary file in the same folder and renamed into place,
/// so a reader never sees half a file; one cut short anyway (a crash before the data reached
/// the disk) fails the end-of-image check on read and is made again.
public struct ThumbnailCache: Sendable {
    public let root: String

    /// The boxes a thumbnail can have: what a gallery needs, from a phone's small tiles to a
    /// desktop's large ones.
    public static let sizes = [64, 128, 256, 512, 1024]

    public init(root: String) {
        self.root = root
    }

    /// Where the catalog at `location` keeps its thumbnails unless told: a folder of its own in
    /// `defaultRoot()`, named after the catalog's file (or database) and a hash of its whole
    /// location. One folder for every catalog let `--prune` with one catalog remove the others'.
    public static func defaultRoot(forCatalog location: String) -> String {
        defaultRoot(forCatalog: location, environment: ProcessInfo.processInfo.environment)
    }

    public static func defaultRoot(forCatalog location: String, environment: [String: String]) -> String {
        let whole: String
        let name: String
        if let (server, port, database) = CatalogLocation.postgresServer(location) {
            whole = "postgres:\(server ?? ""):\(port):\(database)"
            name = database
        } else {
            whole = URL(fileURLWithPath: location).standardizedFileURL.path
            name = URL(fileURLWithPath: whole).deletingPathExtension().lastPathComponent
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a, 64 bits: the same name from run to run
        for byte in whole.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let readable = String(name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) ? Character($0) : "_" }.prefix(40))
        let digits = String(hash, radix: 16)
        return defaultRoot(environment: environment) + "/" + readable + "-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `$XDG_CACHE_HOME/catalog/thumbnails`, else `$HOME/.cache/catalog/thumbnails`: the folder
    /// of every catalog's own (`defaultRoot(forCatalog:)`), which a scan does not enter.
    public static func defaultRoot() -> String {
        defaultRoot(environment: ProcessInfo.processInfo.environment)
    }

    public static func defaultRoot(environment: [String: String]) -> String {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/catalog/thumbnails" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/catalog/thumbnails"
    }

    func folder(of key: ThumbnailKey) -> String {
        let shard = String(UInt8(truncatingIfNeeded: key.itemID), radix: 16)
        return "\(root)/\(key.size)/\(shard.count == 1 ? "0" + shard : shard)"
    }

    public func path(of key: ThumbnailKey) -> String {
        "\(folder(of: key))/\(key.itemID)-\(key.version)"
    }

    /// The cached thumbnail, or nil when there is none (or only a damaged one).
    public func read(_ key: ThumbnailKey) -> CachedThumbnail? {
        guard let data = FileManager.default.contents(atPath: path(of: key)) else { return nil }
        let bytes = [UInt8](data)
        guard let format = Self.completeImage(bytes) else { return nil }
        return CachedThumbnail(key: key, format: format, bytes: bytes)
    }

    public func contains(_ key: ThumbnailKey) -> Bool {
        read(key) != nil
    }

    /// Writes an entry: a temporary file in its folder, then a rename over the name. A failure
    /// names the system's reason (a full disk, a file where a folder should be).
    public func write(_ thumbnail: Thumbnail, for key: ThumbnailKey) throws(ThumbnailProblem) -> CachedThumbnail {
        let folder = folder(of: key)
        // Named by the cache's root and the system's reason, not the entry's own path: one full
        // disk is one message, however many thumbnails meet it.
        func failed(_ reason: String = SystemError.text()) -> ThumbnailProblem {
            .cacheUnwritable(path: root, reason: reason)
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            // Foundation's message names no cause: the first folder on the way that is not one says it.
            throw failed(Self.folderProblem(folder) ?? error.localizedDescription)
        }
        let temporary = "\(folder)/.tmp-\(key.itemID)-\(UInt64.random(in: 0...UInt64.max))"
        guard let fd = Self.unfinished.create(temporary) else { throw failed() }
        var written = 0
        while written < thumbnail.bytes.count {
            let count = thumbnail.bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = count < 0 ? SystemError.text() : "nothing written"
                close(fd)
                Self.unfinished.abandon(temporary)
                throw failed(reason)
            }
            written += count
        }
        guard close(fd) == 0 else {
            let reason = SystemError.text()
            Self.unfinished.abandon(temporary)
            throw failed(reason)
        }
        guard Self.unfinished.finish(temporary, as: path(of: key)) else {
            let reason = SystemError.text()
            Self.unfinished.abandon(temporary)
            throw failed(reason)
        }
        return CachedThumbnail(key: key, format: thumbnail.format, bytes: thumbnail.bytes, made: true)
    }

    /// The temporary files being written, in every cache of the process.
    private static let unfinished = UnfinishedFiles()

    /// Removes the temporary files being written, and refuses new ones: for a process about to
    /// exit on Ctrl-C, which would leave them behind (`--prune` found them ten minutes later).
    public static func removeUnfinished() {
        unfinished.removeAll()
    }

    /// Why `folder` cannot be made: the system's reason at the first path on the way to it that
    /// is not a folder or cannot be made (each missing one is made on the way), or nil when none
    /// is found.
    static func folderProblem(_ folder: String) -> String? {
        var path = folder.hasPrefix("/") ? "" : "." // a relative cache (`--cache cache`) from the working folder
        for part in folder.split(separator: "/") {
            path += "/" + part
            var status = stat()
            if stat(path, &status) != 0 {
                guard errno == ENOENT else { return "\(path): \(SystemError.text())" }
                // Missing: making it says why it cannot be made (a folder this user may not write).
                if mkdir(path, 0o755) != 0 && errno != EEXIST { return "\(path): \(SystemError.text())" }
                continue
            }
            if status.st_mode & S_IFMT != S_IFDIR { return "\(path): \(SystemError.text(ENOTDIR))" }
        }
        return nil
    }

    /// The format of bytes that hold a whole JPEG (ending in EOI) or PNG (ending in IEND); nil
    /// for anything else.
    static func completeImage(_ bytes: [UInt8]) -> ThumbnailFormat? {
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 {
            return .jpeg
        }
        let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        if bytes.count >= 20, bytes[0] == 0x89, bytes[1] == 0x50, bytes.suffix(8).elementsEqual(iend) { return .png }
        return nil
    }

    /// Every entry on disk (and temporary files left by a process that died mid-write).
    func entries() -> [(path: String, key: ThumbnailKey?)] {
        var found: [(String, ThumbnailKey?)] = []
        for size in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            let sizeFolder = "\(root)/\(size)"
            for shard in (try? FileManager.default.contentsOfDirectory(atPath: sizeFolder)) ?? [] {
                let shardFolder = "\(sizeFolder)/\(shard)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: shardFolder)) ?? [] {
                    found.append(("\(shardFolder)/\(name)", Self.key(fileName: name, size: Int(size))))
                }
            }
        }
        return found
    }

    /// The key a file name `<item id>-<version>` in a size's folder stands for.
    static func key(fileName: String, size: Int?) -> ThumbnailKey? {
        let parts = fileName.split(separator: "-")
        guard let size, parts.count == 2, let id = Int64(parts[0]), parts[1].count == 16, UInt64(parts[1], radix: 16) != nil else {
            return nil
        }
        return ThumbnailKey(itemID: id, version: String(parts[1]), size: size)
    }
}

/// Temporary files from their creation to their rename. The lock is held to note and forget a
/// path, never across a system call on the cache (a thumbnail write never waits for another's,
/// nor Ctrl-C for a stalled network disk): a file made while `removeAll` ran is removed by its
/// writer, which finds the set closed.
final class UnfinishedFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: Set<String> = []
    private var closed = false

    /// The new file's descriptor, or nil (errno set) once the process is exiting.
    func create(_ path: String) -> Int32? {
        guard lock.withLock({ closed ? false : paths.insert(path).inserted }) else { errno = ECANCELED; return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let error = errno
        guard fd >= 0 else {
            lock.withLock { _ = paths.remove(path) }
            errno = error
            return nil
        }
        if lock.withLock({ closed }) { // removeAll ran meanwhile, before the file was there
            close(fd)
            unlink(path)
            errno = ECANCELED
            return nil
        }
        return fd
    }

    /// Renames `path` to `name`; false (errno set) if that failed (after `removeAll`: ENOENT).
    func finish(_ path: String, as name: String) -> Bool {
        guard rename(path, name) == 0 else { return false }
        lock.withLock { _ = paths.remove(path) }
        return true
    }

    func abandon(_ path: String) {
        unlink(path)
        lock.withLock { _ = paths.remove(path) }
    }

    func removeAll() {
        let left = lock.withLock {
            closed = true
            defer { paths.removeAll() }
            return paths
        }
        for path in left { unlink(path) }
    }
}
