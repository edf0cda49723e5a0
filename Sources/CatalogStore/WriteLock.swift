#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock that one scan or import holds on a catalog (`flock` on `<catalog>.lock`),
/// released when the process ends, however it ends. Readers never take it.
public final class WriteLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock; with `wait: false`, throws `StoreError.busy` if another process holds it.
    public init(catalogPath: String, wait: Bool) throws(StoreError) {
        let fd = open(catalogPath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: catalogPath + ".lock", reason: String(cString: strerror(errno))) }
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
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
}
