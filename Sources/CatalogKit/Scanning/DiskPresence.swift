import Foundation

/// Whether the disk a vanished file was on is still mounted where the file was: then the file
/// was deleted, or its folder; if not, the disk is unmounted and its files are out of reach, to
/// be kept.
///
/// A device number alone cannot say: the kernel gives an unmounted disk's number to the next disk
/// mounted (a tmpfs, a FUSE, loop or USB disk), in any folder. So a vanished file's disk counts
/// as present, by the number the catalog holds for the file, only
///   1. when a folder above the file has that number now (the disk is mounted there: the file,
///      or a folder of it, was deleted), unless that number now belongs to a disk that the
///      catalog knew under another number (see 3);
///   2. under the topmost folder of a disk on which files with that number were found this scan
///      at their paths, with that number and their inode still (a file on another disk than its
///      folder: a link followed to a file, a file of an overlay's lower layer);
///   3. under the folder where the disk was mounted at the last scan, when files of it were found
///      this scan as the same files (device, inode, size and time) at their paths under another
///      number (the disk mounted again, given a new number) or by their device and inode at
///      other paths (the disk mounted again in another folder, a btrfs subvolume renamed). That
///      folder is the disk's topmost folder now when the file's old path is under it; else the
///      old path less the file's path within the disk now, when the two end alike; else the
///      file's old folder.
///
/// Another disk given the number in another folder makes none true for the unmounted disk's
/// files, at that scan or at later ones, once that disk's own files are stored with the number.
/// Folders are looked at (`lstat`, or `stat` where the scan follows links) once each, and only
/// for the files that vanished.
struct DiskPresence {
    /// Known files found this scan as the same files: with their device number at the last
    /// scan, their path then, and their path now.
    typealias Found = (device: Int64, old: Data, new: Data)

    private let followSymlinks: Bool
    private var found: [Found]
    /// Numbers that disks known under other numbers have now.
    private let renumbered: Set<Int64>
    /// The folders of the known files found at their paths with the number and inode they had.
    private let foldersOfFilesOn: (Int64) -> [Data]
    /// Where disks were mounted at the last scan (3), by their number then, and the topmost
    /// folders of disks holding files with a number (2): paths that end with a slash.
    private var mountedFolders: [Int64: Set<Data>]?
    private var foldersHolding: [Int64: Set<Data>] = [:]
    /// Device numbers of folders, nil where there is no folder now.
    private var devices: [Data: Int64?] = [:]
    /// The last answer's folder and device, which the next vanished file most often shares.
    private var last: (folder: Data, device: Int64, present: Bool)?

    init(followSymlinks: Bool, found: [Found], renumbered: Set<Int64>, foldersOfFilesOn: @escaping (Int64) -> [Data]) {
        self.followSymlinks = followSymlinks
        self.found = found
        self.renumbered = renumbered
        self.foldersOfFilesOn = foldersOfFilesOn
    }

    /// Whether the disk with number `device`, which held the file at `path`, is mounted where the
    /// file was.
    mutating func isPresent(device: Int64, path: Data) -> Bool {
        guard let folder = Self.parent(of: path) else { return false }
        if let last, last.device == device, last.folder == folder { return last.present }
        var present = false
        var above: Data? = renumbered.contains(device) ? nil : folder
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
        if !present, !renumbered.contains(device) {
            if foldersHolding[device] == nil {
                var tops = Set<Data>()
                for folder in foldersOfFilesOn(device) {
                    if let top = topFolder(of: folder) { tops.insert(Self.withSlash(top)) }
                }
                foldersHolding[device] = tops
            }
            present = foldersHolding[device]!.contains { path.starts(with: $0) }
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
                let topPath = Self.withSlash(top)
                let within = new.dropFirst(topPath.count) // the path within the disk now
                if old.starts(with: topPath) {
                    mounted = topPath
                } else if old.count > within.count, old.reversed().starts(with: within.reversed()), old[old.endIndex - within.count - 1] == 47 {
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
