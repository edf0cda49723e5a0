import Foundation

/// Whether the disk a vanished file was on is still mounted where the file was: then the file
/// was deleted, or its folder; if not, the disk is unmounted and its files are out of reach, to
/// be kept.
///
/// A device number alone cannot say: the kernel gives an unmounted disk's number to the next disk
/// mounted (a tmpfs, a FUSE, loop or USB disk), in any folder. So a vanished file's disk counts
/// as present only
///   - when a folder above the file is on a disk with the file's device number now (the disk is
///     mounted there: the file, or a folder of it, was deleted); or
///   - under the folder where the disk was mounted at the last scan, when some of its files were
///     found this scan at their paths on a disk with another number (the disk mounted again and
///     given a new number), or by their device and inode at other paths (the disk mounted again
///     in another folder, a btrfs subvolume renamed). That folder is the old path of such a file
///     less the file's path within the disk now (below the topmost folder of the disk that holds
///     it); where the two paths do not end alike, the file's old folder.
///
/// Another disk given the number in another folder makes neither true for the unmounted disk's
/// files, at that scan or at later ones, once that disk's own files are stored with the number.
/// Folders are looked at (`lstat`, or `stat` where the scan follows links) once each, and only
/// for the files that vanished.
struct DiskPresence {
    /// Known files found this scan: with their device number at the last scan, their path then,
    /// and their path now.
    typealias Found = (device: Int64, old: Data, new: Data)

    private let followSymlinks: Bool
    private var found: [Found]
    /// Folders where disks were mounted at the last scan, by their device number then (paths
    /// that end with a slash).
    private var mountedFolders: [Int64: Set<Data>]?
    /// Device numbers of folders, nil where there is no folder now.
    private var devices: [Data: Int64?] = [:]
    /// The last answer's folder and device, which the next vanished file most often shares.
    private var last: (folder: Data, device: Int64, present: Bool)?

    init(followSymlinks: Bool, found: [Found]) {
        self.followSymlinks = followSymlinks
        self.found = found
    }

    /// Whether the disk with number `device`, which held the file at `path`, is mounted where the
    /// file was.
    mutating func isPresent(device: Int64, path: Data) -> Bool {
        guard let folder = Self.parent(of: path) else { return false }
        if let last, last.device == device, last.folder == folder { return last.present }
        var present = false
        var above: Data? = folder
        while let current = above {
            if self.device(of: current) == device {
                present = true
                break
            }
            above = Self.parent(of: current)
        }
        if !present {
            if mountedFolders == nil { mountedFolders = findMountedFolders() }
            present = mountedFolders![device]?.contains { path.starts(with: $0) } ?? false
        }
        last = (folder, device, present)
        return present
    }

    /// The folders where the disks of the files found were mounted at the last scan.
    private mutating func findMountedFolders() -> [Int64: Set<Data>] {
        var folders: [Int64: Set<Data>] = [:]
        var done: (old: Data, new: Data)?
        for (device, old, new) in found {
            guard let oldFolder = Self.parent(of: old), let newFolder = Self.parent(of: new) else { continue }
            // Files of one folder moved to one folder give one answer: worked out once.
            if let done, done.old == oldFolder, done.new == newFolder { continue }
            done = (oldFolder, newFolder)
            var mounted = Self.withSlash(oldFolder)
            if let top = topFolder(of: newFolder) {
                let within = new.dropFirst(Self.withSlash(top).count) // the path within the disk now
                if old.count > within.count, old.reversed().starts(with: within.reversed()), old[old.endIndex - within.count - 1] == 47 {
                    mounted = Data(old.prefix(old.count - within.count))
                }
            }
            folders[device, default: []].insert(mounted)
        }
        found = []
        return folders
    }

    /// The topmost folder above `folder`, or itself, on the same disk as it.
    private mutating func topFolder(of folder: Data) -> Data? {
        guard let disk = device(of: folder) else { return nil }
        var top = folder
        while let up = Self.parent(of: top), device(of: up) == disk { top = up }
        return top
    }

    private mutating func device(of folder: Data) -> Int64? {
        if let known = devices[folder] { return known }
        var info = stat()
        let looked = CPath.with(folder) { followSymlinks ? stat($0, &info) : lstat($0, &info) }
        let device = looked == 0 && info.st_mode & S_IFMT == S_IFDIR ? Int64(bitPattern: UInt64(info.st_dev)) : nil
        devices[folder] = device
        return device
    }

    /// The folder holding `path` ("/" for a path right under it), nil for "/" itself.
    static func parent(of path: Data) -> Data? {
        guard path.count > 1, let slash = path.lastIndex(of: 47) else { return nil }
        return slash == path.startIndex ? Data([47]) : Data(path[path.startIndex..<slash])
    }

    private static func withSlash(_ folder: Data) -> Data {
        folder.last == 47 ? folder : folder + [47]
    }
}
