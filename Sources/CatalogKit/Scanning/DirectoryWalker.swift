import CatalogModel
import Foundation
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
/// inode), which breaks loops. Folders that cannot be read are reported and skipped; so are,
/// with `device` set (`--one-file-system`), folders on another device than that one.
struct DirectoryWalker {
    /// A folder's handle, kept open while any of its files is: a batch of files can be handled
    /// after the walk has moved on (on another thread), and each file still opened relative to
    /// its folder.
    final class Folder: @unchecked Sendable {
        /// -1 if no handle was left (the process is out of them): files are then opened by path.
        let fd: Int32

        init(copying fd: Int32) {
            self.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        }

        deinit {
            if fd >= 0 { close(fd) }
        }
    }

    struct File {
        /// The folder holding the file.
        let folder: Folder
        /// The full path; the file's name is its last `nameLength` bytes.
        let path: Data
        let nameLength: Int
        let stat: stat

        /// Calls `body` with a handle and a name to open the file by (`openat`): its folder's and
        /// its name, or the working directory's and its full path if the folder has no handle.
        func withName<T>(_ body: (Int32, UnsafePointer<CChar>) -> T) -> T {
            let length = folder.fd >= 0 ? nameLength : path.count
            return path.withUnsafeBytes { raw in
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { name in
                    for index in 0..<length { name[index] = CChar(bitPattern: raw[raw.count - length + index]) }
                    name[length] = 0
                    return body(folder.fd >= 0 ? folder.fd : AT_FDCWD, name.baseAddress!)
                }
            }
        }
    }

    enum Event {
        /// A batch of regular files from one folder.
        case files([File])
        /// A folder that could not be opened or read.
        case unreadable(path: [UInt8], reason: String)
        /// An entry passed over, and why (a followed link that leads nowhere).
        case skipped(path: [UInt8], reason: String)
        /// Entering a folder, with its change time (`st_ctim`) from before it was listed: a
        /// folder whose change time moves later was changed after (or while) it was listed.
        case folder(path: [UInt8], changed: timespec)
    }

    var includeHidden = false
    var followSymlinks = false
    /// Folders not entered (absolute paths, without a trailing slash).
    var passOver = Set<[UInt8]>()
    var batchSize = 256
    /// The device of the walk's root when folders on other file systems are not entered.
    var device: UInt64?
    private var visited = Set<DirectoryID>()

    private struct DirectoryID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    init(includeHidden: Bool, followSymlinks: Bool) {
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
    }

    /// Walks the folder at `path`, already opened as `fd` (which the walk closes); with
    /// `recursive: false`, only the files directly in it.
    mutating func walk(fd: Int32, path: [UInt8], recursive: Bool = true, handle: (Event) throws -> Void) rethrows {
        var info = stat()
        if fstat(fd, &info) == 0 {
            if let device, UInt64(info.st_dev) != device { // a folder a disk was mounted on since
                close(fd)
                try handle(.unreadable(path: path, reason: Self.anotherFileSystem))
                return
            }
            visited.insert(DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
        }
        try walkDirectory(fd: fd, path: path, changed: info.st_ctim, recursive: recursive, handle: handle)
    }

    private mutating func walkDirectory(fd: Int32, path: [UInt8], changed: timespec, recursive: Bool = true,
                                        handle: (Event) throws -> Void) rethrows {
        guard let directory = fdopendir(fd) else {
            let reason = SystemError.text()
            close(fd)
            try handle(.unreadable(path: path, reason: reason))
            return
        }
        defer { closedir(directory) }
        try handle(.folder(path: path, changed: changed))
        let dfd = dirfd(directory)
        var prefix = Data(path)
        if prefix.last != 47 { prefix.append(47) } // "/"
        var files: [File] = []
        var folders: [(name: [CChar], changed: timespec)] = []
        var folder: Folder? // made at the folder's first file
        // An entry that is listed but cannot be looked at, for another reason than its being
        // gone since (or, through a followed link, dangling or looping) (a folder that may be
        // read but not entered gives EACCES for every entry; a network
        // disk EIO or ESTALE): the folder is said to be unreadable, once, so that none of the
        // files known under it is taken for removed.
        var saidUnreadable = false
        while true {
            // readdir returns NULL both at the end and on error; only errno tells them apart, and
            // anything called in this loop (probing, SQLite) may leave errno set: reset it here.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { try handle(.unreadable(path: path, reason: SystemError.text())) }
                break
            }
            // The name is read in place: no copy for the entries that are only stat'ed.
            let name = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self)
            let length = strlen(name)
            if name[0] == 46 && (length == 1 || (length == 2 && name[1] == 46)) { continue } // "." and ".."
            if name[0] == 46, !includeHidden { continue }
            var info = stat()
            guard fstatat(dfd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno != ENOENT, !saidUnreadable { // ENOENT: vanished meanwhile
                    saidUnreadable = true
                    try handle(.unreadable(path: path, reason: Self.entriesNotLookedAt()))
                }
                continue
            }
            if info.st_mode & S_IFMT == S_IFLNK {
                guard followSymlinks else { continue }
                guard fstatat(dfd, name, &info, 0) == 0 else {
                    if errno == ENOENT || errno == ELOOP { // asked to follow links: one that leads nowhere is said
                        let reason = errno == ENOENT ? "a link to nothing (its target is gone)" : "a loop of links"
                        try handle(.skipped(path: join(path, Array(UnsafeBufferPointer(start: name, count: length))), reason: reason))
                    } else if !saidUnreadable {
                        saidUnreadable = true
                        try handle(.unreadable(path: path, reason: Self.entriesNotLookedAt()))
                    }
                    continue
                }
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                var filePath = Data(capacity: prefix.count + length)
                filePath.append(prefix)
                filePath.append(UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: length)
                if folder == nil { folder = Folder(copying: dfd) }
                files.append(File(folder: folder!, path: filePath, nameLength: length, stat: info))
                if files.count >= batchSize {
                    try handle(.files(files))
                    files.removeAll(keepingCapacity: true)
                }
            case S_IFDIR:
                if recursive, let device, UInt64(info.st_dev) != device {
                    try handle(.unreadable(path: join(path, Array(UnsafeBufferPointer(start: name, count: length))), reason: Self.anotherFileSystem))
                } else if recursive, !passOver.isEmpty, passOver.contains(join(path, Array(UnsafeBufferPointer(start: name, count: length)))) {
                    continue
                } else if recursive, visited.insert(DirectoryID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted {
                    folders.append((Array(UnsafeBufferPointer(start: name, count: length + 1)), info.st_ctim))
                }
            default:
                continue // FIFOs, sockets, devices: never opened
            }
        }
        if !files.isEmpty { try handle(.files(files)) }
        // The folder's copy of its handle now lives only as long as its batches: not held through
        // the walk of its subfolders, one more handle per level of depth.
        (files, folder) = ([], nil)
        for (name, changed) in folders {
            let childPath = join(path, Array(name.dropLast()))
            let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (followSymlinks ? 0 : O_NOFOLLOW)
            let child = openat(dfd, name, flags)
            guard child >= 0 else {
                try handle(.unreadable(path: childPath, reason: SystemError.text()))
                continue
            }
            try walkDirectory(fd: child, path: childPath, changed: changed, handle: handle)
        }
    }

    static let anotherFileSystem = "on another file system (--one-file-system)"

    /// Why a folder's entries could not be looked at, from `errno`.
    private static func entriesNotLookedAt() -> String {
        "its entries cannot be looked at (\(SystemError.text()))"
    }

    private func join(_ path: [UInt8], _ name: [CChar]) -> [UInt8] {
        var joined = path
        if joined.last != 47 { joined.append(47) } // "/"
        joined.append(contentsOf: name.map { UInt8(bitPattern: $0) })
        return joined
    }
}
