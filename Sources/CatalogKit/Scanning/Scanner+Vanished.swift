import CatalogModel
import Dispatch
import Foundation

/// What the walk did not see at its path: files moved (renamed, or copied then deleted), files
/// of disks that are not mounted now, and files that vanished.
extension Scanner {
    /// Keeps the vanished files of disks that are not mounted now where they were (`DiskPresence`
    /// says which). An unmounted disk leaves its mount point behind, empty, on the disk above;
    /// its files are neither removed nor taken for copied elsewhere, and the summary says so. A
    /// disk emptied while mounted has its folders there, and a disk that came back under another
    /// device number, or in another folder, has files found at their paths or renamed (moved by
    /// their inode, matched before this): their vanished files go as ever.
    func keepFilesOfUnmountedDisks(_ roots: inout [Root]) {
        guard seen.contains(false) else { return }
        var disks = DiskPresence(followSymlinks: options.followSymlinks, found: found, renumbered: renumbered) { [knownFiles, seenByTheWalk, metAsAnotherFile] device in
            var folders: [Data] = []
            for (index, file) in knownFiles.enumerated() where seenByTheWalk[index] && file.stat.device == device && !metAsAnotherFile.contains(index) {
                if let last = folders.last, file.path.count > last.count + 1, file.path.starts(with: last), file.path[file.path.startIndex + last.count] == 47,
                   !file.path.dropFirst(last.count + 1).contains(47) {
                    continue // in the folder before
                }
                if let folder = DiskPresence.parent(of: file.path) { folders.append(folder) }
            }
            return folders
        }
        (found, renumbered) = ([], [])
        for index in roots.indices {
            var kept: [Int64: [Int]] = [:]
            for position in roots[index].known where !seen[position] && !isUnderUnreadFolder(knownFiles[position].path)
                && !disks.isPresent(device: knownFiles[position].stat.device, path: knownFiles[position].path) {
                kept[knownFiles[position].stat.device, default: []].append(position)
            }
            guard !kept.isEmpty else { continue }
            roots[index].complete = false
            let whole = roots[index].whole && kept.count == 1 && kept.first!.value.count == roots[index].known.count
            if whole {
                summary.unscannedRoots.append("\(PathText.display(roots[index].folders[0].path)): empty, on another disk than every file the "
                    + "catalog has under it (an unmounted disk?); nothing removed under it")
            }
            for (_, positions) in kept.sorted(by: { $0.value[0] < $1.value[0] }) {
                for position in positions { seen[position] = true }
                guard !whole else { continue }
                // The folder all of them are in: the disk's mount point, or a folder under it.
                var common = knownFiles[positions[0]].path
                for position in positions.dropFirst() {
                    common = common.prefix(zip(common, knownFiles[position].path).prefix(while: { $0 == $1 }).count)
                }
                let folder = common.lastIndex(of: 47).map { common[common.startIndex..<$0] } ?? common
                summary.problems.append("\(PathText.display(folder)): \(positions.count) known \(positions.count == 1 ? "file" : "files") "
                    + "on a disk that is not mounted now (an unmounted disk?); kept, not removed")
            }
        }
    }

    /// The moves of one kind, in the order `scan` takes them.
    enum MoveKind {
        /// By device and inode, with the same size and time: taken before the files of unmounted
        /// disks are kept, so a disk mounted again in another folder moves its files (and says
        /// where it was mounted: `DiskPresence`).
        case renamed
        /// By device and inode, with the same fingerprint but another size or time: after the
        /// keeping, so that another disk given an unmounted one's number, with files at the same
        /// inodes (a fresh file system filled in the same order), takes none of its items.
        case renamedAndChanged
        /// By size and fingerprint (a copy, then the original deleted): last, so a copy never takes
        /// a renamed file's item, nor a kept file's.
        case copied
    }

    /// Moves: a move if the old path vanished (the first of them, for a file met by its
    /// content), else (a hard link, a copy) a new file. The moves go to the store a batch at a
    /// time, each one transaction that moves the generation once, with what changed in the
    /// moved files.
    func resolveMoves(_ kind: MoveKind) throws(StoreError) {
        var batch: [FileMove] = []
        var changes: [FileChange?] = []
        func write() throws(StoreError) {
            for (move, (moved, change)) in zip(batch, zip(try store.move(batch), changes)) {
                guard moved else {
                    // Onto an imported item's key: refused there, its own item gone.
                    summary.failed += 1
                    summary.removed += 1
                    continue
                }
                summary.moved += 1
                if let change { try queue(change, rootID: move.rootID ?? rootID) } // no longer an image: its item goes
            }
            (batch, changes) = ([], [])
            if options.reportEveryBatch { report() }
            if pending.count >= options.batchSize { try flush(wait: false) }
        }
        func ofThisKind(_ move: (path: Data, rootID: Int64, from: [Int], change: FileChange?, byContent: Bool)) -> Bool {
            kind == (move.byContent ? .copied : move.change == nil ? .renamed : .renamedAndChanged)
        }
        // A known file the walk met at two new paths (renamed again while the walk ran, from a
        // folder it had listed into one it had not): the path it left is passed over, and the
        // one it is at takes its item. The first met took it, at a path gone since, and the
        // file where it is came in as new: its id was lost.
        var claims: [Int: Int] = [:]
        if kind != .copied { for move in moves where ofThisKind(move) { for index in move.from { claims[index, default: 0] += 1 } } }
        for move in moves where ofThisKind(move) {
            let (path, root, candidates, change) = (move.path, move.rootID, move.from, move.change)
            if candidates.contains(where: { claims[$0, default: 0] > 1 }), !Self.exists(path) { continue }
            // Not one under a folder this scan could not read, unless its path is gone: it may
            // well be there still. By inode, a file the walk met at its old path too, as itself
            // (not one kept on an unmounted disk, nor one replaced there), is a move if that path
            // is gone now (renamed while the walk ran), else a hard link.
            if let index = likeliest(candidates, for: path, time: change?.stat.mtimeNanoseconds, byName: kind == .copied,
                                     where: { !seen[$0] && (!isUnderUnreadFolder(knownFiles[$0].path) || isGone(knownFiles[$0]))
                                         && (!isStillThere(knownFiles[$0]) || isReached(knownFiles[$0], at: path)) })
                ?? (kind == .copied ? nil : candidates.first(where: { seenByTheWalk[$0] && !metAsAnotherFile.contains($0) && isGone(knownFiles[$0]) })) {
                seen[index] = true
                seenByTheWalk[index] = false // moved away: not taken twice
                let old = knownFiles[index]
                if kind == .renamed { found.append((old.stat.device, old.path, path)) } // its disk is where it is now
                var move = FileMove(from: old.path, to: path, itemID: old.itemID, rootID: root, stat: change?.stat,
                                    fingerprint: change?.fingerprint)
                var rest: FileChange?
                switch change?.outcome {
                case .image(let facts)?: move.facts = facts
                case nil: break
                default: rest = change.map { var updated = $0; updated.itemID = old.itemID; return updated }
                }
                batch.append(move)
                changes.append(rest)
                if batch.count >= options.batchSize { try write() }
            } else if let change {
                try queue(change, rootID: root)
            } else {
                // A new file after all (a hard link of a file the walk met at its own path too):
                // read now, with the walk's stat (its candidates'), and counted as the walk counts.
                let change = probe(path: path, walked: knownFiles[candidates[0]].stat)
                switch change.outcome {
                case .image: break // counted as added when written
                case .unsupported: summary.unsupported += 1
                case .failed: summary.failed += 1
                }
                try queue(change, rootID: root)
            }
        }
        if !batch.isEmpty { try write() }
        moves.removeAll(where: ofThisKind)
        try flush(wait: true)
    }

    /// Of the known files `candidates` that `eligible` takes, the one most like the file now at
    /// `path`: the most path components in common at the end (its name, then its folder's...),
    /// then the same time; the first on a tie. Identical copies moved together (a folder copied
    /// to another disk, then deleted) each keep their own item, not one another's. `byName`
    /// (the known files with some content, which may be thousands of copies): only those with
    /// the file's name are weighed (found by an index of the group's names made once), else the
    /// first the walk did not meet.
    func likeliest(_ candidates: [Int], for path: Data, time: Int64?, byName: Bool, where eligible: (Int) -> Bool) -> Int? {
        guard candidates.count > 1 else { return candidates.first.flatMap { eligible($0) ? $0 : nil } }
        var weighed = candidates
        if byName && candidates.count > 8 {
            let group = candidatesByName[candidates[0]] ?? Dictionary(grouping: candidates) { Self.name(of: knownFiles[$0].path) }
            candidatesByName[candidates[0]] = group
            weighed = group[Self.name(of: path)] ?? []
        }
        var best: (index: Int, score: (Int, Bool))?
        for candidate in weighed where eligible(candidate) {
            let known = knownFiles[candidate]
            let score = (Self.commonTrailingComponents(known.path, path), time == known.stat.mtimeNanoseconds)
            if best == nil || score.0 > best!.score.0 || (score.0 == best!.score.0 && score.1 && !best!.score.1) {
                best = (candidate, score)
            }
        }
        return best?.index ?? (weighed.count < candidates.count ? candidates.first(where: eligible) : nil)
    }

    /// A path's last component.
    static func name(of path: Data) -> Data {
        path.lastIndex(of: 47).map { path[path.index(after: $0)...] } ?? path
    }

    /// How many whole path components two absolute paths end with in common ("/a/x/p.png" and
    /// "/b/x/p.png": 2).
    static func commonTrailingComponents(_ a: Data, _ b: Data) -> Int {
        var (i, j, count) = (a.endIndex, b.endIndex, 0)
        while i > a.startIndex, j > b.startIndex {
            i -= 1
            j -= 1
            if a[i] != b[j] { break }
            if a[i] == 47 { count += 1 } // a component matched whole, up to its '/'
        }
        return count
    }

    /// Whether the file is no longer at its path: nothing there, or another file.
    func isGone(_ file: KnownFile) -> Bool {
        var info = stat()
        guard CPath.with(file.path, { options.followSymlinks ? stat($0, &info) : lstat($0, &info) }) == 0 else { return errno == ENOENT || errno == ENOTDIR }
        return Int64(bitPattern: UInt64(info.st_ino)) != file.stat.inode || Int64(bitPattern: UInt64(info.st_dev)) != file.stat.device
    }

    /// Finds the files renamed while the walk ran that it met at neither name: moved out of a
    /// folder not listed yet into one listed already, or within a folder while it was listed
    /// (`readdir` may then skip it). Only when known files vanished: the walked folders whose
    /// change time moved since the walk met them are listed again, with the folders under them
    /// the walk did not meet (renamed into them), and a vanished file's device and inode found
    /// there is a move, as if the walk had met it: the same file when its stat is unchanged, or
    /// when its bytes still give its fingerprint.
    func findFilesRenamedDuringTheWalk() throws(StoreError) {
        guard seen.contains(false) else { return }
        var taken = Set<Int>()
        for move in moves where !move.byContent { taken.formUnion(move.from) }
        var vanished: [FileIdentity: Int] = [:]
        for (index, file) in knownFiles.enumerated() where !seen[index] && file.itemID != nil && !taken.contains(index) {
            vanished[FileIdentity(device: file.stat.device, inode: file.stat.inode)] = index
        }
        guard !vanished.isEmpty else { return }
        let changed = walkedFolders.filter { folder in
            var info = stat()
            return CPath.with(folder.path) { options.followSymlinks ? stat($0, &info) : lstat($0, &info) } == 0
                && (info.st_ctim.tv_sec, info.st_ctim.tv_nsec) != (folder.changed.tv_sec, folder.changed.tv_nsec)
        }
        guard !changed.isEmpty else { return }
        let walked = Set(walkedFolders.map(\.path))
        let arrived = Set(moves.map(\.path))
        for folder in changed where !vanished.isEmpty {
            try list(folder.path, walked: true, rootID: folder.rootID, recursive: folder.recursive, walkedFolders: walked, arrived: arrived,
                     vanished: &vanished)
        }
    }

    /// Lists a folder again for `findFilesRenamedDuringTheWalk`, and the folders under it that
    /// the walk did not meet. In a folder the walk met (`walked`), a path may be one it stored as
    /// a new file this scan: the store is asked.
    private func list(_ path: [UInt8], walked: Bool, rootID root: Int64, recursive: Bool, walkedFolders: Set<[UInt8]>, arrived: Set<Data>,
                      vanished: inout [FileIdentity: Int]) throws(StoreError) {
        guard let directory = CPath.with(path, { opendir($0) }) else { return }
        defer { closedir(directory) }
        let fd = dirfd(directory)
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let device = Int64(bitPattern: UInt64(info.st_dev))
        let prefix = path.last == 47 ? path : path + [47]
        var folders: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard name != [46], name != [46, 46], options.includeHidden || name.first != 46 else { continue }
            var kind = entry.pointee.d_type
            if kind == UInt8(DT_UNKNOWN) {
                guard CPath.with(name, { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { continue }
                kind = info.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : info.st_mode & S_IFMT == S_IFREG ? UInt8(DT_REG) : 0
            }
            if kind == UInt8(DT_DIR) {
                // Not into a folder the walk could not read or skipped (--one-file-system: another disk).
                if recursive, !walkedFolders.contains(prefix + name), !isUnderUnreadFolder(Data(prefix + name + [47])) { folders.append(prefix + name) }
                continue
            }
            guard kind == UInt8(DT_REG), let index = vanished[FileIdentity(device: device, inode: Int64(bitPattern: UInt64(entry.pointee.d_ino)))] else { continue }
            let newPath = Data(prefix + name)
            guard knownIndex[PathKey(newPath)] == nil, !arrived.contains(newPath),
                  CPath.with(name, { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if walked, try isStored(newPath) { continue } // a new file the walk met, replaced: its path keeps its id
            let old = knownFiles[index]
            let now = Self.fileStat(info)
            guard now.device == old.stat.device, now.inode == old.stat.inode else { continue }
            var change: FileChange?
            if now != old.stat {
                change = probe(path: newPath, walked: now)
                guard change?.fingerprint != nil, change?.fingerprint == old.fingerprint else { continue } // another file given the inode
            }
            moves.append((newPath, root, [index], change, false))
            vanished[FileIdentity(device: now.device, inode: now.inode)] = nil
            summary.files += 1
        }
        for folder in folders where !vanished.isEmpty {
            try list(folder, walked: false, rootID: root, recursive: true, walkedFolders: walkedFolders, arrived: arrived, vanished: &vanished)
        }
    }

    /// Whether something is at `path` (not following a last link).
    static func exists(_ path: Data) -> Bool {
        var info = stat()
        return CPath.with(path) { lstat($0, &info) } == 0
    }

    /// Whether the store has a file at `path`: a range read from the path less any trailing 0xFF
    /// bytes (the range's end is its last byte plus one), at worst the file's folder.
    private func isStored(_ path: Data) throws(StoreError) -> Bool {
        var prefix = path
        while prefix.last == 0xFF { prefix.removeLast() }
        return try store.knownFiles(under: prefix).contains { $0.path == path }
    }

    /// Adds a change to the pending batch, which holds one root's: another root's batch is
    /// handed to the writer first.
    func queue(_ change: FileChange, rootID root: Int64) throws(StoreError) {
        if root != rootID {
            try flush(wait: false)
            rootID = root
        }
        pending.append(change)
    }

    func isUnderUnreadFolder(_ path: Data) -> Bool {
        incompletePrefixes.contains { prefix in
            // Not when a root inside that folder walked the path's own folder (a disk mounted
            // under a root, skipped by its walk with --one-file-system, given as a root too).
            path.starts(with: prefix) && !rootPrefixes.contains { $0.count > prefix.count && $0.starts(with: prefix) && path.starts(with: $0) }
        }
    }

    /// Keeps the known files the walk did not meet that are still at their paths, the same file
    /// (device and inode, links followed): under a hidden name without --include-hidden, or
    /// reached through a symbolic link without --follow-symlinks, an earlier scan's options
    /// found them, and this scan's left them alone. Removing them lost their items and ids to
    /// an option left out of a cron job. The summary says how many, with the way to rescan them
    /// and `--prune`, which removes them (as it does nothing in the walk's thumbnail cache).
    func keepFilesTheWalkDidNotTake(_ roots: [Root]) {
        guard !options.prune, seen.contains(false) else { return }
        for root in roots {
            var (hidden, linked, other) = (0, 0, 0)
            let resolvedRoot = Self.resolved(Data(root.path))
            for position in root.known where !seen[position] {
                let file = knownFiles[position]
                guard !isUnderUnreadFolder(file.path), isStillThere(file) else { continue }
                seen[position] = true
                let inside = file.path.count > root.path.count ? file.path.dropFirst(root.path.count) : file.path[...]
                if !options.includeHidden, inside.split(separator: 47).contains(where: { $0.first == 46 }) {
                    hidden += 1
                } else if !options.followSymlinks, let resolvedRoot, Self.resolved(file.path) != resolvedRoot + inside {
                    linked += 1
                } else {
                    other += 1
                }
            }
            let place = PathText.display(root.path)
            func files(_ count: Int) -> String { count == 1 ? "1 known file" : "\(count) known files" }
            if hidden > 0 {
                summary.problems.append("\(place): \(files(hidden)) under hidden names, which this scan does not enter without --include-hidden, "
                    + "still there; kept, not removed (a scan with --include-hidden scans them, `catalog scan --prune` removes them from the catalog)")
            }
            if linked > 0 {
                summary.problems.append("\(place): \(files(linked)) reached through symbolic links, which this scan does not follow without "
                    + "--follow-symlinks, still there; kept, not removed (a scan with --follow-symlinks scans them, `catalog scan --prune` removes them from the catalog)")
            }
            if other > 0 {
                summary.problems.append("\(place): \(files(other)) the walk did not meet (moved away and back while it ran?) still at "
                    + "their paths; kept, not removed (`catalog scan --prune` removes them from the catalog)")
            }
        }
    }

    /// Whether a known file the walk did not meet is still at its path, the same file (device
    /// and inode, links followed), and not in a folder the walk passes over (the thumbnail
    /// cache): what `keepFilesTheWalkDidNotTake` keeps, unless --prune.
    func isStillThere(_ file: KnownFile) -> Bool {
        guard !options.prune, !passedOver.contains(where: { file.path.starts(with: $0) }) else { return false }
        var info = stat()
        return CPath.with(file.path, { stat($0, &info) }) == 0 && info.st_mode & S_IFMT == S_IFREG
            && Int64(bitPattern: UInt64(info.st_ino)) == file.stat.inode && Int64(bitPattern: UInt64(info.st_dev)) == file.stat.device
    }

    /// Whether the known file, still at its path, is there through a link to the walked `path`
    /// (a folder moved and a link to it left where it was): the same file, moved, not a copy
    /// (a file still at its own path, as under a hidden name: keepFilesTheWalkDidNotTake keeps it).
    func isReached(_ file: KnownFile, at path: Data) -> Bool {
        Self.resolved(file.path).map { $0 == (Self.resolved(path) ?? path) && $0 != file.path } ?? false
    }

    /// The path with every symbolic link in it resolved (`realpath`); nil if it cannot be.
    static func resolved(_ path: Data) -> Data? {
        guard let resolved = CPath.with(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return Data(bytes: resolved, count: strlen(resolved))
    }

    /// Vanished files, removed unless they lie under a folder that could not be read (or were
    /// kept as on an unmounted disk).
    func removeVanished() throws(StoreError) {
        var gone: [Data] = []
        for (index, file) in knownFiles.enumerated() where !seen[index] && !isUnderUnreadFolder(file.path) {
            gone.append(file.path)
        }
        summary.removed += try store.remove(paths: gone)
        // Freed on another thread: a hundred thousand paths take a while to free, and the scan's
        // caller need not wait for it.
        let done = (knownFiles, knownIndex, knownByInodeIndex, knownByContentIndex, knownHardLinks, knownCopies)
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(done) {} }
        (knownFiles, knownIndex, seen, knownByInodeIndex, knownByContentIndex, knownHardLinks, knownCopies) = ([], [:], [], nil, nil, [:], [:])
        (seenByTheWalk, walkedFolders) = ([], [])
    }

    /// Probes one path again (a hard-linked file whose probe was deferred). A file that cannot
    /// be opened or stat'ed now keeps the stat the walk saw (`walked`): its row is then on its
    /// real disk, and removed by the next scan if it is gone.
    func probe(path: Data, walked: FileStat) -> FileChange {
        let fd = CPath.with(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (options.followSymlinks ? 0 : O_NOFOLLOW)) }
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            let outcome = fd < 0 ? FileOutcome.cannotOpen(SystemError.text()) : .cannotStat(SystemError.text()) // before close, which may change errno
            if fd >= 0 { close(fd) }
            return FileChange(path: path, stat: walked, fingerprint: nil, outcome: outcome, itemID: nil)
        }
        defer { close(fd) }
        let probed = Self.probe(fd: fd, stat: info)
        return FileChange(path: path, stat: Self.fileStat(info), fingerprint: probed.fingerprint, outcome: probed.outcome, itemID: nil)
    }
}
