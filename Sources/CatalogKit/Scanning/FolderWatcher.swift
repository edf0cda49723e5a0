import Foundation
import Glibc

/// Linux inotify over every folder under the scan roots: which folders had files created,
/// written, deleted, renamed or touched. Folders created (or moved in) later are watched as
/// their events arrive. When the kernel's watch limit (fs.inotify.max_user_watches) is reached,
/// `limitReached` says so and the folders past it are not watched: the caller falls back to
/// periodic full rescans. Paths are bytes, as the kernel gives them: a folder whose name is not
/// UTF-8 is watched like any other.
package final class FolderWatcher {
    /// What a round of events asks for.
    package struct Changes {
        /// Folders to scan again, by root (absolute paths): recursively (a folder that came or
        /// went with what is in it), or only the files directly in it.
        package var folders: [String: [[UInt8]: Bool]] = [:]

        mutating func note(_ folder: [UInt8], root: String, recursive: Bool) {
            folders[root, default: [:]][folder, default: false] = folders[root]?[folder] == true || recursive
        }
        /// The kernel's event queue overflowed: events were lost, scan every root again.
        var overflowed = false
        var isEmpty: Bool { folders.isEmpty && !overflowed }
    }

    private let fd: Int32
    private var watched: [Int32: (root: String, path: [UInt8])] = [:]
    private let includeHidden: Bool
    /// At most this many folders (nil: as many as the kernel allows): the kernel's limit, tested.
    private let limit: Int?
    private(set) var limitReached = false
    var folderCount: Int { watched.count }
    /// Roots whose folder went (deleted, moved away, its disk unmounted): watched again, and
    /// scanned whole, once a folder is at their path again (`reattach`).
    private var lostRoots: Set<String> = []
    /// Each root's device when it was watched: a root comes back only on it (a mount point
    /// left empty by an unmounted disk is another device, and is not the root).
    private var rootDevices: [String: UInt64] = [:]
    /// Files whose events are no change: the catalog's own, when it lies under a root (the
    /// scans' own writes would start a rescan after every rescan). By folder and exact name.
    package var ignored: (folder: [UInt8], names: Set<[UInt8]>)?

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO
                                     | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

    /// Folders on another file system than their root's are not watched (`--one-file-system`).
    private let oneFileSystem: Bool

    package init(includeHidden: Bool, oneFileSystem: Bool = false, limit: Int? = nil) throws(StoreError) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .database("cannot watch folders: inotify_init1: \(SystemError.text())") }
        self.includeHidden = includeHidden
        self.oneFileSystem = oneFileSystem
        self.limit = limit
    }

    deinit { close(fd) }

    /// Watches `folder` (under `root`) and every folder under it.
    package func add(root: String, folder: [UInt8]) {
        var stack = [folder]
        while let path = stack.popLast(), !limitReached {
            if let limit, watched.count >= limit {
                limitReached = true
                break
            }
            let wd = CPath.with(path) { inotify_add_watch(fd, $0, Self.mask) }
            let isRoot = path == Array(root.utf8)
            if wd < 0 {
                if errno == ENOSPC { limitReached = true }
                // A root missing now (a disk not mounted yet) is watched once it is there.
                if isRoot && (errno == ENOENT || errno == ENOTDIR) { lostRoots.insert(root) }
                continue // gone or unreadable: its parent's events still cover it
            }
            watched[wd] = (root, path)
            if isRoot {
                lostRoots.remove(root)
                var info = stat()
                if rootDevices[root] == nil, stat(root, &info) == 0 { rootDevices[root] = UInt64(info.st_dev) }
            }
            guard let directory = CPath.with(path, { opendir($0) }) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let type = entry.pointee.d_type
                guard type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) else { continue }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
                if name == [46] || name == [46, 46] || (!includeHidden && name.first == 46) { continue } // ".", "..", hidden
                if type == UInt8(DT_UNKNOWN) || oneFileSystem { // a file system that does not say: ask, without following links
                    var info = stat()
                    guard CPath.with(name, { fstatat(dirfd(directory), $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0,
                          info.st_mode & S_IFMT == S_IFDIR else { continue }
                    if oneFileSystem, let device = rootDevices[root], UInt64(info.st_dev) != device { continue }
                }
                stack.append(path + [47] + name)
            }
        }
    }

    /// Stops watching `folder` and the folders under it (moved away: their watches would
    /// report under the old path).
    private func remove(folder: [UInt8]) {
        let prefix = folder + [47]
        for (wd, entry) in watched where entry.path == folder || entry.path.starts(with: prefix) {
            inotify_rm_watch(fd, wd)
            watched[wd] = nil
        }
    }

    /// Watches the lost roots that are folders again (a disk mounted again, a folder moved back
    /// or made anew); returns them, to be scanned whole.
    func reattach() -> [String] {
        var found: [String] = []
        for root in lostRoots {
            var info = stat()
            guard stat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
                  rootDevices[root].map({ $0 == UInt64(info.st_dev) }) ?? true else { continue }
            lostRoots.remove(root)
            add(root: root, folder: Array(root.utf8))
            found.append(root)
        }
        return found
    }

    /// Waits up to `timeout` for the first event, then collects events until none came for
    /// `quiet` (a burst of copies is one round) or `longest` passed since the first.
    package func wait(timeout: Duration, quiet: Duration, longest: Duration) -> Changes {
        var changes = Changes()
        guard poll(timeout) else { return changes }
        let first = ContinuousClock.now
        repeat {
            drain(into: &changes)
        } while ContinuousClock.now - first < longest && poll(min(quiet, longest - (ContinuousClock.now - first)))
        return changes
    }

    /// Whether an event is waiting, waiting at most `timeout`.
    private func poll(_ timeout: Duration) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        return Glibc.poll(&entry, 1, milliseconds) > 0
    }

    private func drain(into changes: inout Changes) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = Array(buffer[nameStart..<(nameStart + length)].prefix(while: { $0 != 0 }))
                offset = nameStart + length
                handle(wd: wd, mask: mask, name: name, into: &changes)
            }
        }
    }

    private func handle(wd: Int32, mask: UInt32, name: [UInt8], into changes: inout Changes) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            changes.overflowed = true
            return
        }
        guard let (root, folder) = watched[wd] else { return }
        if mask & UInt32(IN_IGNORED) != 0 {
            watched[wd] = nil
            return
        }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
            // A root's own folder went: nothing above it is watched, so this is the only word
            // of it. Its watches go (a folder moved away would report under the old path), and
            // the root is scanned (which removes nothing while it is missing). Another folder's
            // parent's event names it.
            if folder == Array(root.utf8) {
                remove(folder: folder)
                lostRoots.insert(root)
                changes.note(folder, root: root, recursive: true)
            }
            return
        }
        if !includeHidden && name.first == 46 { return } // hidden
        let path = name.isEmpty ? folder : folder + [47] + name
        if mask & UInt32(IN_ISDIR) != 0 {
            // A folder that came or went: everything under it, recursively (gone: its files vanish).
            if mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { remove(folder: path) }
            // Its permissions changed (IN_ATTRIB): a folder that could not be watched may be now.
            if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB) != 0 { add(root: root, folder: path) }
            changes.note(path, root: root, recursive: true)
            return
        }
        if let ignored, folder == ignored.folder, ignored.names.contains(name) { return }
        changes.note(folder, root: root, recursive: false) // a file in this folder: its own files only
    }
}

extension FolderWatcher.Changes {
    /// A root's folders to scan, without those inside a folder scanned recursively.
    static func outermost(_ folders: [[UInt8]: Bool]) -> [(path: [UInt8], recursive: Bool)] {
        folders.filter { folder, _ in
            var ancestor = folder[...]
            while let slash = ancestor.lastIndex(of: 47), slash > ancestor.startIndex {
                ancestor = ancestor[..<slash]
                if folders[Array(ancestor)] == true { return false }
            }
            return true
        }.map { (path: $0.key, recursive: $0.value) }.sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }
}
