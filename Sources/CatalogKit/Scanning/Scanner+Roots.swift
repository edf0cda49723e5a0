import CatalogModel
import Foundation

/// The roots of a scan: which of those given are walked (none inside another one's walk), and
/// each opened, whole or some of its folders, with its row in the catalog.
extension Scanner {
    /// The roots to walk, in the order given: each folder once, and none inside another one
    /// given that the other's walk reaches (compared as absolute paths, which `absolute` gives
    /// with symbolic links resolved; one under a hidden folder the walk skips stays a root); and
    /// each root left out, with a line saying why, and the root it is inside (nil: given twice).
    package static func outermost(_ roots: [String], options: ScanOptions = ScanOptions())
        -> (walked: [String], leftOut: [(root: String, line: String, inside: String?)]) {
        let absolute = roots.map(Self.absolute)
        var walked: [String] = []
        var leftOut: [(root: String, line: String, inside: String?)] = []
        for (index, root) in roots.enumerated() {
            let path = absolute[index]
            if absolute[..<index].contains(path) {
                leftOut.append((root, "\(PathText.display(root.utf8)) is given twice: scanned once", nil))
            } else if let outer = absolute.firstIndex(where: { $0 != path && path.hasPrefix($0 == "/" ? "/" : $0 + "/") && walk(from: $0, reaches: path, options) }) {
                leftOut.append((root, "\(PathText.display(root.utf8)) is inside \(PathText.display(roots[outer].utf8)): scanned once", roots[outer]))
            } else {
                walked.append(root)
            }
        }
        return (walked, leftOut)
    }

    /// Whether the walk of `outer` enters every folder down to `path` (absolute, under it).
    static func walk(from outer: String, reaches path: String, _ options: ScanOptions) -> Bool {
        guard options.includeHidden || !path.dropFirst(outer == "/" ? 1 : outer.count + 1).split(separator: "/").contains(where: { $0.hasPrefix(".") })
        else { return false }
        // Without --follow-symlinks, the walk enters no symbolic link between the two: a root
        // given as a link under the outer one is walked on its own, unless the folder it leads
        // to is one the walk reaches where it is (the same files, walked once); with
        // --one-file-system, no folder on another disk than the outer one's (a mount point under it).
        var info = stat()
        let device: dev_t? = options.oneFileSystem && stat(outer, &info) == 0 ? info.st_dev : nil
        guard !options.followSymlinks || device != nil else { return true }
        var folder = path[...]
        while folder.count > outer.count {
            if !options.followSymlinks, lstat(String(folder), &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                // Both with every link resolved: the call below meets none, and ends.
                let resolved = { (path: String) in Self.resolved(Data(path.utf8)).map { String(decoding: $0, as: UTF8.self) } }
                guard let real = resolved(path), let realOuter = resolved(outer),
                      real == realOuter || real.hasPrefix(realOuter == "/" ? "/" : realOuter + "/") else { return false }
                return real == realOuter || walk(from: realOuter, reaches: real, options)
            }
            if let device, stat(String(folder), &info) == 0, info.st_dev != device { return false }
            guard let slash = folder.lastIndex(of: "/") else { break }
            folder = folder[..<slash]
        }
        return true
    }

    /// The roots ready to walk (see `prepare(root:folders:)`); none left open if one fails.
    func prepare(_ roots: [(root: String, folders: [(path: [UInt8], recursive: Bool)]?)]) throws(StoreError) -> [Root] {
        var prepared: [Root] = []
        do throws(StoreError) {
            for (root, folders) in roots {
                if let ready = try prepare(root: root, folders: folders) { prepared.append(ready) }
            }
        } catch {
            for root in prepared { for walk in root.walks { close(walk.fd) } }
            throw error
        }
        return prepared
    }

    /// A root ready to walk: its folders opened, its row in the catalog.
    struct Root {
        let id: Int64
        /// Its absolute path.
        let path: [UInt8]
        /// The folders to walk, opened (the walk closes them).
        let walks: [(fd: Int32, path: [UInt8], recursive: Bool)]
        /// The folders whose known files the walk is compared with: the root, or those given.
        let folders: [(path: [UInt8], recursive: Bool)]
        /// Folders given that could not be opened (nothing under them is removed).
        let unreadable: [Data]
        /// A scan of the whole root, recorded in its row when done.
        let whole: Bool
        /// With `--one-file-system`, the root's device: the walk enters no folder on another.
        let device: UInt64?
        /// Its files in `knownFiles`.
        var known: Range<Int> = 0..<0
        var complete = true
    }

    /// Why `root` cannot be walked, as a scan's summary says it, or nil when it can be opened as
    /// a folder (the command makes no catalog when no root given can).
    package static func unscannable(_ root: String) -> String? {
        unscannableReason(root).map { unscannable(root, reason: $0) }
    }

    /// Why `root` cannot be walked, in the system's words, or nil.
    static func unscannableReason(_ root: String) -> String? {
        let fd = open(absolute(root), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return openFailure() }
        defer { close(fd) }
        return enterFailure(fd)
    }

    /// Why the folder open at `fd` cannot be entered, if it cannot: a folder that may be listed
    /// (read permission) but not searched (no x) names its files, none of which can be reached.
    static func enterFailure(_ fd: Int32) -> String? {
        let inside = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        guard inside < 0 else {
            close(inside)
            return nil
        }
        return errno == EACCES ? "\(SystemError.text()) (it can be listed, not entered)" : SystemError.text()
    }

    /// Why opening a root as a folder failed, from errno.
    private static func openFailure() -> String {
        errno == ENOTDIR ? "not a folder (scan takes folders; `catalog probe FILE` reads one file)" : SystemError.text()
    }

    static func unscannable(_ root: String, reason: String) -> String {
        "\(PathText.display(root.utf8)): \(reason); nothing scanned or removed under it"
    }

    /// Opens a root, or with `folders` only those folders under it (a folder gone means its
    /// files vanished); nil, with the reason in the summary, when there is nothing to walk.
    func prepare(root: String, folders: [(path: [UInt8], recursive: Bool)]?) throws(StoreError) -> Root? {
        let absolute = Self.absolute(root)
        var walks: [(fd: Int32, path: [UInt8], recursive: Bool)] = []
        var unreadable: [Data] = []
        var device: UInt64?
        if let folders {
            // The root itself gone (its disk unmounted, the folder moved away or replaced): its
            // folders are not gone with their files, only out of reach.
            var info = stat()
            let found = stat(absolute, &info) == 0
            guard found, info.st_mode & S_IFMT == S_IFDIR else {
                let reason = found ? "not a folder" : SystemError.text()
                summary.unscannedRoots.append(Self.unscannable(root, reason: reason))
                return nil
            }
            if options.oneFileSystem { device = UInt64(info.st_dev) }
            for (folder, recursive) in folders {
                // A folder under the root replaced by a link to one is gone, as the walk of the
                // root would not enter the link, unless links are followed (its files are then
                // kept while the link reaches them, as a walk of the whole root keeps them).
                let noFollow = options.followSymlinks || folder == Array(absolute.utf8) ? 0 : O_NOFOLLOW
                let fd = CPath.with(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | noFollow) }
                let failure = fd >= 0 ? Self.enterFailure(fd) : errno == ENOENT || errno == ENOTDIR || (errno == ELOOP && noFollow != 0) ? nil : SystemError.text()
                if fd >= 0, failure == nil {
                    walks.append((fd, folder, recursive))
                } else if let failure { // else gone: its files vanished
                    if fd >= 0 { close(fd) }
                    unreadable.append(Data(folder + [47]))
                    summary.problems.append("\(PathText.display(folder)): \(failure); skipped, nothing under it removed")
                }
            }
        } else {
            let fd = open(absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                summary.unscannedRoots.append(Self.unscannable(root, reason: Self.openFailure()))
                return nil
            }
            if let failure = Self.enterFailure(fd) {
                close(fd)
                summary.unscannedRoots.append(Self.unscannable(root, reason: failure))
                return nil
            }
            var info = stat()
            if options.oneFileSystem, fstat(fd, &info) == 0 { device = UInt64(info.st_dev) }
            walks.append((fd, Array(absolute.utf8), true))
        }
        let rootPath = Array(absolute.utf8)
        if let longest = longestKey, rootPath.count >= longest {
            for walk in walks { close(walk.fd) }
            summary.unscannedRoots.append("\(PathText.display(Data(rootPath))): its path is \(rootPath.count) bytes, more than a catalog in PostgreSQL can index under it; nothing scanned or removed under it")
            return nil
        }
        let id: Int64
        do {
            id = try store.rootID(for: Data(rootPath))
        } catch {
            for walk in walks { close(walk.fd) } // opened above; the walk would have closed them
            throw error
        }
        return Root(id: id, path: rootPath, walks: walks, folders: folders ?? [(rootPath, true)], unreadable: unreadable,
                    whole: folders == nil, device: device)
    }
}
