#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CatalogModel

/// An exclusive lock that one scan or import holds on a catalog (`flock` on `<catalog>.lock`),
/// released when the process ends, however it ends. Readers never take it. The layout file's
/// repair takes one on `<catalog>.layouts.lock` the same way, and every opening of the layout
/// file a shared one (LayoutFile.open). A `flock` belongs to its open file, not its process:
/// two of them in one process exclude each other as two processes' do.
final class WriteLock: WriteLease {
    private let descriptor: Int32

    /// Takes the lock, or with `shared` a lock that others may hold at once and that excludes
    /// only an exclusive one; with `wait: false`, throws `StoreError.busy` if another process
    /// holds it.
    init(catalogPath: String, wait: Bool, shared: Bool = false) throws(StoreError) {
        var fd = open(catalogPath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // Another user's lock file: `flock` needs only a descriptor, which reading gives.
        if fd < 0 && errno == EACCES { fd = open(catalogPath + ".lock", O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .cannotOpen(path: catalogPath + ".lock", reason: SystemError.text()) }
        Self.giveToOwner(catalogPath + ".lock", of: catalogPath)
        while flock(fd, (shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            close(fd)
            throw .busy(path: catalogPath)
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Run as root on another user's catalog: a file root made beside it (a lock file, the
    /// layouts' file) is given to the catalog's owner, as SQLite gives its -wal and -shm; the
    /// owner could not open the catalog after root otherwise.
    static func giveToOwner(_ file: String, of catalogPath: String) {
        guard geteuid() == 0 else { return }
        var catalog = stat(), made = stat()
        guard stat(catalogPath, &catalog) == 0, catalog.st_uid != 0, lstat(file, &made) == 0, made.st_uid == 0 else { return }
        _ = chown(file, catalog.st_uid, catalog.st_gid)
    }
}
