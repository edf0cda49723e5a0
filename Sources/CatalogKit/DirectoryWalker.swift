#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks a folder tree relative to directory handles (`openat`), so paths longer than
/// PATH_MAX work, and keeps names as bytes, so names that are not UTF-8 survive.
///
/// Hidden entries (names starting with ".") are skipped unless asked for; symbolic links are
/// not followed unless asked for, and then every directory is entered once (by device and
/// inode), which breaks loops. Folders that cannot be read are reported and skipped.
struct DirectoryWalker {
    struct File {
        /// The open directory holding the file; valid until the folder's batch is handled.
        let directory: Int32
        let name: [CChar]
        let path: [UInt8]
        let stat: stat
    }

    enum Event {
        /// A batch of regular files from one folder; its directory handle is open until the
        /// handler returns.
        case files([File])
        /// A folder that could not be opened or read.
        case unreadable(path: [UInt8], reason: String)
        /// Entering a folder (for progress).
        case folder(path: [UInt8])
    }

    var includeHidden = false
    var followSymlinks = false
    var batchSize = 256
    private var visited = Set<DirectoryID>()

    private struct DirectoryID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    init(includeHidden: Bool, followSymlinks: Bool) {
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
    }

    /// Walks the folder at `path`, already opened as `fd` (which the walk closes).
    mutating func walk(fd: Int32, path: [UInt8], handle: (Event) throws -> Void) rethrows {
        var info = stat()
        if fstat(fd, &info) == 0 { visited.insert(DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))) }
        try walkDirectory(fd: fd, path: path, handle: handle)
    }

    private mutating func walkDirectory(fd: Int32, path: [UInt8], handle: (Event) throws -> Void) rethrows {
        guard let directory = fdopendir(fd) else {
            let reason = String(cString: strerror(errno))
            close(fd)
            try handle(.unreadable(path: path, reason: reason))
            return
        }
        defer { closedir(directory) }
        try handle(.folder(path: path))
        let dfd = dirfd(directory)
        var files: [File] = []
        var folders: [[CChar]] = []
        errno = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.bindMemory(to: CChar.self).prefix { $0 != 0 })
            }
            if name == [46] || name == [46, 46] { continue } // "." and ".."
            if name.first == 46, !includeHidden { continue }
            var info = stat()
            guard fstatat(dfd, name + [0], &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue } // vanished meanwhile
            if info.st_mode & S_IFMT == S_IFLNK {
                guard followSymlinks, fstatat(dfd, name + [0], &info, 0) == 0 else { continue }
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                files.append(File(directory: dfd, name: name + [0], path: join(path, name), stat: info))
                if files.count >= batchSize {
                    try handle(.files(files))
                    files.removeAll(keepingCapacity: true)
                }
            case S_IFDIR:
                if visited.insert(DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted {
                    folders.append(name + [0])
                }
            default:
                continue // FIFOs, sockets, devices: never opened
            }
        }
        if errno != 0 { try handle(.unreadable(path: path, reason: String(cString: strerror(errno)))) }
        if !files.isEmpty { try handle(.files(files)) }
        for name in folders {
            let childPath = join(path, Array(name.dropLast()))
            let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (followSymlinks ? 0 : O_NOFOLLOW)
            let child = openat(dfd, name, flags)
            guard child >= 0 else {
                try handle(.unreadable(path: childPath, reason: String(cString: strerror(errno))))
                continue
            }
            try walkDirectory(fd: child, path: childPath, handle: handle)
        }
    }

    private func join(_ path: [UInt8], _ name: [CChar]) -> [UInt8] {
        var joined = path
        if joined.last != 47 { joined.append(47) } // "/"
        joined.append(contentsOf: name.map { UInt8(bitPattern: $0) })
        return joined
    }
}
