import CatalogModel
import Dispatch
import Foundation
import ImageProbe

/// `catalog scan`: walks roots, probes new and changed files on all cores, and writes the
/// catalog in batches, each one transaction, so a scan killed at any moment leaves a
/// consistent catalog that the next scan completes. One instance is one scan: `Catalog.scan`
/// makes a new one for every call.
package final class Scanner {
    let store: any CatalogBackend
    /// The store's bound on a path's bytes (PostgreSQL's), read once rather than per file.
    let longestKey: Int?
    /// The catalog's own files (an SQLite catalog kept in a folder it scans), and their paths'
    /// lengths, which most files' paths are not: passed over, not probed nor counted.
    private let ownFiles: Set<Data>
    private let ownFileLengths: Set<Int>
    /// With --follow-symlinks, the same files by device and inode: a link to their folder
    /// reaches them under other paths.
    private let ownFileIdentities: Set<FileIdentity>
    let options: ScanOptions
    var summary = ScanSummary()
    var pending: [FileChange] = []
    lazy var writer = BatchWriter(store: store)
    /// The root being walked, and of the pending batch.
    var rootID: Int64 = 0
    /// Files known under the scan's roots, found by path; those not seen by the walks vanished.
    var knownFiles: [KnownFile] = []
    var knownIndex: [PathKey: Int] = [:]
    var seen: [Bool] = []
    /// Known files by device and inode, made when the walk first meets a path it does not know
    /// (never, in an unchanged rescan).
    var knownByInodeIndex: [FileIdentity: Int]?
    /// The other known paths of an inode that has several (hard links).
    var knownHardLinks: [FileIdentity: [Int]] = [:]
    /// New paths whose inode (or, for an image, whose size and fingerprint) belongs to a known
    /// file with an item, by its index in `knownFiles`: moves, unless the old path is still
    /// there. A file without an item (unsupported, or failed: perhaps for its path, an imported
    /// item's key) is read again at its new path. Decided
    /// after the walk, and written then: a copy of a folder then deleted (`mv` across file
    /// systems) is moved with its ids, never added first and taken back later, so a scan
    /// killed half-way leaves no copy that the next scan would take for a new item.
    var moves: [(path: Data, rootID: Int64, from: [Int], change: FileChange?, byContent: Bool)] = []
    /// Known images by size and fingerprint, made when the walk first meets a new image (never,
    /// in an unchanged rescan or a first scan).
    var knownByContentIndex: [ContentKey: Int]?
    /// The other known images with content that several have (copies).
    var knownCopies: [ContentKey: [Int]] = [:]
    /// Such a group of copies by their names, keyed by the group's first known file (`likeliest`).
    var candidatesByName: [Int: [Data: [Int]]] = [:]
    var incompletePrefixes: [Data] = []
    /// The roots walked by this scan, each ending in "/" (a folder under one that another root
    /// walked is not unread, though the outer walk did not enter it).
    var rootPrefixes: [Data] = []
    /// Every root the catalog has, each ending in "/".
    var catalogRootPrefixes: Set<Data> = []
    /// The roots this scan was given to walk (absolute), found or not.
    var givenRoots: Set<Data> = []
    /// Known files found as the same files at their paths under another device number, or moved
    /// by their inode: where their disks are mounted now (the other known files of those disks
    /// that vanished were deleted, not left on an unmounted disk).
    var found: [DiskPresence.Found] = []
    /// The numbers those found at their paths have now (see `DiskPresence`).
    var renumbered: Set<Int64> = []
    /// Which known files the walk met at their paths (`seen` before the moves), and which of
    /// those it met as another file, or on another number (another device or inode: replaced,
    /// or their disk mounted again).
    var seenByTheWalk: [Bool] = []
    /// The folders the walk passes over (`options.passOver`), absolute, each with a '/'.
    lazy var passedOver: [Data] = options.passOver.map { Data(Array(Self.absolute($0).utf8) + [47]) }
    var metAsAnotherFile: Set<Int> = []
    /// The folders walked, with their change time when the walk met them, their root and whether
    /// the folders under them were walked: one changed since may hold files renamed into it
    /// after it was listed.
    var walkedFolders: [(path: [UInt8], changed: timespec, rootID: Int64, recursive: Bool)] = []
    private var start = ContinuousClock.now
    private var used = false
    private var progress: ((ScanProgress) -> Void)?
    private var folder: [UInt8] = []

    struct FileIdentity: Hashable { let device: Int64, inode: Int64 }

    /// A path with its hash computed once: Data's own hashing walks every byte through
    /// Hasher, which dominated rescans.
    struct PathKey: Hashable {
        let hash: UInt64
        let path: Data

        init(_ path: Data) {
            self.path = path
            hash = path.withUnsafeBytes { raw -> UInt64 in
                var hash = UInt64(raw.count) &* 0x9E37_79B9_7F4A_7C15
                var offset = 0
                while offset + 8 <= raw.count {
                    hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                    hash ^= hash >> 29
                    offset += 8
                }
                while offset < raw.count {
                    hash = (hash ^ UInt64(raw[offset])) &* 0x0000_0100_0000_01B3
                    offset += 1
                }
                return hash
            }
        }

        static func == (lhs: PathKey, rhs: PathKey) -> Bool { lhs.hash == rhs.hash && lhs.path == rhs.path }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }
    struct ContentKey: Hashable { let size: Int64, fingerprint: Int64 }

    package init(store: any CatalogBackend, options: ScanOptions = ScanOptions()) {
        self.store = store
        longestKey = store.longestKey
        ownFiles = store.ownFiles
        ownFileLengths = Set(ownFiles.map(\.count))
        ownFileIdentities = !options.followSymlinks ? [] : Set(ownFiles.compactMap { path in
            var info = stat()
            guard CPath.with(Array(path)) { stat($0, &info) } == 0 else { return nil }
            let own = Self.fileStat(info)
            return FileIdentity(device: own.device, inode: own.inode)
        })
        self.options = options
    }

    /// Scans `roots` (paths as given; made absolute), reporting progress now and then. Roots
    /// that cannot be scanned are listed in the summary; the others are scanned all the same. A
    /// root given twice, or inside another one given, is walked once, with the outer one (a
    /// problem in the summary says so): its files are not counted twice.
    func run(roots: [String], progress: ((ScanProgress) -> Void)? = nil) throws(StoreError) -> ScanSummary {
        self.progress = progress
        let (walked, leftOut) = Self.outermost(roots, options: options)
        givenRoots = Set(walked.map { Data(Self.absolute($0).utf8) })
        return try drive(roots: walked) { () throws(StoreError) in
            for (root, line, outer) in leftOut {
                // One inside another that is missing, a file, or cannot be entered is an error
                // (exit 1) as it is alone: a typo under a root given beside it passed unnoticed.
                // The outer root's walk went on there (what it held under a missing one is gone),
                // unless the outer one cannot be walked either (a disk unmounted).
                if let outer, let reason = Self.unscannableReason(root) {
                    summary.unscannedRoots.append(Self.unscannableReason(outer) == nil
                        ? "\(PathText.display(root.utf8)): \(reason); it is inside \(PathText.display(outer.utf8)), whose scan went on there"
                        : Self.unscannable(root, reason: reason))
                } else {
                    summary.problems.append(line)
                }
            }
            try scan(prepare(walked.map { ($0, nil) }))
        }
    }

    /// Scans folders of one root again (absolute paths under it, none inside another one that is
    /// scanned recursively): what a watcher does when files change there. `recursive: false`
    /// scans only the files directly in the folder. Moves between the folders keep their items.
    package func run(root: String, folders: [(path: [UInt8], recursive: Bool)]) throws(StoreError) -> ScanSummary {
        try run(folders: [(root, folders)])
    }

    /// Scans folders of several roots again, in one scan (each root's as `run(root:folders:)`
    /// does): a file moved from a folder of one root to a folder of another keeps its item.
    package func run(folders byRoot: [(root: String, folders: [(path: [UInt8], recursive: Bool)])]) throws(StoreError) -> ScanSummary {
        givenRoots = Set(byRoot.map { Data(Self.absolute($0.root).utf8) })
        return try drive(roots: byRoot.map(\.root)) { () throws(StoreError) in
            try scan(prepare(byRoot))
        }
    }

    /// One scan under the lock of its roots: `body` walks, then stale layouts go and the order
    /// data is brought up to the items.
    private func drive(roots: [String], _ body: () throws(StoreError) -> Void) throws(StoreError) -> ScanSummary {
        precondition(!used, "a Scanner runs one scan")
        used = true
        start = ContinuousClock.now
        let lock = try store.lockForScanning(roots: roots.map { Data(Self.absolute($0).utf8) })
        defer { withExtendedLifetime(lock) {} }
        let before = try store.generation()
        try body()
        if try store.generation() != before { try store.pruneStaleLayouts() }
        try store.refreshOrderData()
        summary.elapsedSeconds = Timestamps.seconds(since: start)
        summary.generation = try store.generation()
        summary.failing += summary.failed // and those under the roots that failed before, unchanged (`handle`)
        return summary
    }

    /// Walks the roots one after the other, then decides the moves among all of them and removes
    /// what vanished: a file moved from one root to another keeps its item as a move within a
    /// root does, whichever root is walked first, and a scan killed before the end has removed
    /// nothing.
    private func scan(_ prepared: [Root]) throws(StoreError) {
        var roots = prepared
        var walked = 0
        defer { for root in roots[walked...] { for walk in root.walks { close(walk.fd) } } } // never handed to a walk
        (knownFiles, knownIndex, seen, knownByInodeIndex, knownByContentIndex, moves, incompletePrefixes) = ([], [:], [], nil, nil, [], [])
        (found, renumbered, metAsAnotherFile, walkedFolders) = ([], [], [], [])
        for index in roots.indices {
            walked = index + 1
            rootID = roots[index].id
            // The walk runs on a thread of its own, a bounded number of batches ahead, while this
            // one reads the known files (every root's, with the first) and then handles the
            // batches: an unchanged rescan costs about the longer of the walk and the reading,
            // not their sum.
            let steps = walk(roots[index].walks, device: roots[index].device)
            defer { steps.stop() }
            if index == 0 { try readKnownFiles(of: &roots) }
            let before = incompletePrefixes.count
            incompletePrefixes += roots[index].unreadable
            var lastReport = ContinuousClock.now
            let shallow = Set(roots[index].walks.filter { !$0.recursive }.map(\.path))
            while let event = steps.take() {
                switch event {
                case .files(let files):
                    try handle(files)
                case .unreadable(let path, let reason):
                    // A disk --one-file-system does not enter that is a root of its own (scanned as one).
                    if reason == DirectoryWalker.anotherFileSystem, catalogRootPrefixes.contains(Data(path + [47])) { continue }
                    incompletePrefixes.append(Data(path + [47]))
                    summary.problems.append("\(PathText.display(path)): \(reason); skipped, nothing under it removed")
                case .skipped(let path, let reason):
                    summary.problems.append("\(PathText.display(path)): \(reason); skipped")
                case .folder(let path, let changed):
                    folder = path
                    walkedFolders.append((path, changed, rootID, shallow.isEmpty || !shallow.contains(path)))
                    if ContinuousClock.now - lastReport > .milliseconds(100) {
                        lastReport = ContinuousClock.now
                        report()
                    }
                }
            }
            try flush(wait: false) // with this root's id
            roots[index].complete = incompletePrefixes.count == before
        }
        try flush(wait: true)
        seenByTheWalk = seen
        try resolveMoves(.renamed)
        keepFilesOfUnmountedDisks(&roots)
        try findFilesRenamedDuringTheWalk() // its moves are renames, after the keeping: it lists no folder for a kept file
        try resolveMoves(.renamed)
        try resolveMoves(.renamedAndChanged)
        try resolveMoves(.copied)
        keepFilesTheWalkDidNotTake(roots)
        try removeVanished()
        for root in roots where root.whole { try store.finishScan(rootID: root.id, complete: root.complete) }
    }

    /// Reads the files the catalog knows under every root, in order, noting each root's.
    private func readKnownFiles(of roots: inout [Root]) throws(StoreError) {
        // A root inside another one that the other's walk does not enter (a hidden folder, a
        // disk with --one-file-system) has its files, whether it is scanned now or not, while
        // its folder is there or it is given (missing, it is said to be, and nothing under it
        // removed): the outer one's are the rest, so that each known file is one root's, seen
        // or not by that root's walk. A hidden root deleted since is the outer one's again.
        func folder(_ path: [UInt8]) -> Data { Data(path.last == 47 ? path : path + [47]) }
        rootPrefixes = roots.filter(\.whole).map { folder($0.path) }
        let catalogRoots = try store.rootPaths()
        catalogRootPrefixes = Set(catalogRoots.map { folder(Array($0)) })
        var info = stat()
        for index in roots.indices {
            let first = knownFiles.count
            let root = String(decoding: roots[index].path, as: UTF8.self)
            let inner = catalogRoots.filter { other in
                other.count > roots[index].path.count && folder(Array(other)).starts(with: folder(roots[index].path))
                    && !Self.walk(from: root, reaches: String(decoding: other, as: UTF8.self), options)
                    && (givenRoots.contains(other) || CPath.with(other) { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFDIR)
            }.map { folder(Array($0)) }
            var tookGone = false
            for (folder, recursive) in roots[index].folders {
                var prefix = Data(folder)
                if prefix.last != 47 { prefix.append(47) }
                let known = try store.knownFiles(under: prefix).filter { file in !inner.contains { file.path.starts(with: $0) } }
                // One level: the files of subfolders are not looked at, so they must not vanish;
                // but those of a subfolder that is not one now (deleted, or replaced by a link to
                // a folder that went with the link) went with it, and no event names its files.
                // Not those of another root of the catalog (a hidden one, missing for a while).
                var gone: [PathKey: Bool] = [:]
                knownFiles += recursive ? known : known.filter { file in
                    guard let slash = file.path[(file.path.startIndex + prefix.count)...].firstIndex(of: 47) else { return true }
                    let subfolder = PathKey(file.path[..<slash])
                    let isGone = gone[subfolder] ?? (!isFolderTheWalkEnters(subfolder.path) && !catalogRootPrefixes.contains(Data(subfolder.path + [47])))
                    gone[subfolder] = isGone
                    return isGone
                }
                tookGone = tookGone || gone.values.contains(true)
            }
            if tookGone { // a file once: another folder of this scan (the one gone, a folder made under it since) may have read it too
                var paths = Set<PathKey>()
                let own = knownFiles[first...].filter { paths.insert(PathKey($0.path)).inserted }
                knownFiles.replaceSubrange(first..., with: own)
            }
            roots[index].known = first..<knownFiles.count
        }
        knownIndex = Dictionary(minimumCapacity: knownFiles.count)
        for (index, file) in knownFiles.enumerated() { knownIndex[PathKey(file.path)] = index }
        seen = Array(repeating: false, count: knownFiles.count)
    }

    /// Whether a walk would enter the folder at `path` from the folder above: a folder, not a
    /// link to one unless links are followed. True too when that cannot be told (an I/O error,
    /// a path too long for the call): its files are not taken for gone.
    private func isFolderTheWalkEnters(_ path: Data) -> Bool {
        var info = stat()
        guard CPath.with(path, { options.followSymlinks ? stat($0, &info) : lstat($0, &info) }) == 0 else { return errno != ENOENT && errno != ENOTDIR }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// Batches of the walk that may wait for the scanner: each holds its folder's handle open.
    private static let walkAhead = 256

    /// Starts walking `walks` (folders already opened; the walk closes them) on a thread of its
    /// own: its events in order, nil when it is done; `stop()` ends it and waits until it has
    /// closed every folder it opened.
    private func walk(_ walks: [(fd: Int32, path: [UInt8], recursive: Bool)], device: UInt64?) -> Handoff<DirectoryWalker.Event?> {
        struct Stopped: Error {}
        let steps = Handoff<DirectoryWalker.Event?>(capacity: Self.walkAhead)
        nonisolated(unsafe) var walker = DirectoryWalker(includeHidden: options.includeHidden, followSymlinks: options.followSymlinks)
        walker.passOver = Set(options.passOver.map { Array(Self.absolute($0).utf8) })
        walker.device = device
        steps.startProducer { steps in
            var stopped = false
            for (fd, path, recursive) in walks {
                guard !stopped else { close(fd); continue }
                do {
                    try walker.walk(fd: fd, path: path, recursive: recursive) { event in
                        guard steps.put(event) else { throw Stopped() }
                    }
                } catch {
                    stopped = true
                }
            }
            steps.put(nil)
        }
        return steps
    }

    /// The known files with the device and inode of `stat` (hard links: several), if any.
    private func knownByInode(_ stat: FileStat) -> [Int]? {
        if knownByInodeIndex == nil {
            // One Int a file, not an array: the index is made for the first new path of a rescan.
            var index = [FileIdentity: Int](minimumCapacity: knownFiles.count)
            knownHardLinks = [:]
            for (position, file) in knownFiles.enumerated() {
                let identity = FileIdentity(device: file.stat.device, inode: file.stat.inode)
                if index[identity] == nil { index[identity] = position } else { knownHardLinks[identity, default: []].append(position) }
            }
            knownByInodeIndex = index
        }
        let identity = FileIdentity(device: stat.device, inode: stat.inode)
        guard let first = knownByInodeIndex![identity] else { return nil }
        return [first] + (knownHardLinks[identity] ?? [])
    }

    /// The known images with this size and fingerprint, if any.
    private func knownByContent(_ key: ContentKey) -> [Int]? {
        if knownByContentIndex == nil {
            var index = [ContentKey: Int](minimumCapacity: knownFiles.count)
            knownCopies = [:]
            for (position, file) in knownFiles.enumerated() where file.itemID != nil { // an image's, or one kept through a failed read
                guard let fingerprint = file.fingerprint else { continue }
                let content = ContentKey(size: file.stat.size, fingerprint: fingerprint)
                if index[content] == nil { index[content] = position } else { knownCopies[content, default: []].append(position) }
            }
            knownByContentIndex = index
        }
        guard let first = knownByContentIndex![key] else { return nil }
        return [first] + (knownCopies[key] ?? [])
    }

    /// One folder's batch: skip unchanged files, probe the rest in parallel.
    private func handle(_ files: [DirectoryWalker.File]) throws(StoreError) {
        summary.files += files.count
        var toProbe: [(file: DirectoryWalker.File, stat: FileStat, previous: KnownFile?)] = []
        for file in files {
            if ownFileLengths.contains(file.path.count), ownFiles.contains(file.path) {
                summary.files -= 1 // the catalog's database, journals, locks: not the user's files
                continue
            }
            if let longest = longestKey, file.path.count > longest {
                // Never stored, so met as new by every scan, and said so each time.
                summary.problems.append("\(PathText.display(file.path)): its path is \(file.path.count) bytes, more than the \(longest) a catalog in PostgreSQL can index; skipped")
                continue
            }
            let stat = Self.fileStat(file.stat)
            if !ownFileIdentities.isEmpty, ownFileIdentities.contains(FileIdentity(device: stat.device, inode: stat.inode)) {
                summary.files -= 1 // the same, reached through a link
                continue
            }
            if let index = knownIndex[PathKey(file.path)] {
                seen[index] = true
                if knownFiles[index].stat == stat && !knownFiles[index].unreadable {
                    summary.unchanged += 1
                    if knownFiles[index].status == FileOutcome.failed("").status { summary.failing += 1 } // not read again: it fails still
                } else {
                    toProbe.append((file, stat, knownFiles[index]))
                    if knownFiles[index].stat.inode != stat.inode || knownFiles[index].stat.device != stat.device { metAsAnotherFile.insert(index) }
                    if knownFiles[index].stat.device != stat.device { noteFoundOnAnotherNumber(index, now: stat, nameLength: file.nameLength) }
                }
            } else if let renamed = knownByInode(stat)?.filter({ !seen[$0] && knownFiles[$0].itemID != nil && knownFiles[$0].stat == stat }),
                      !renamed.isEmpty {
                moves.append((file.path, rootID, renamed, nil, false)) // renamed, content untouched: nothing to read
            } else {
                toProbe.append((file, stat, nil))
            }
        }
        guard !toProbe.isEmpty else { return }
        let outcomes = Self.probeAll(toProbe.map(\.file), followSymlinks: options.followSymlinks)
        for ((file, stat, previous), probed) in zip(toProbe, outcomes) {
            let path = file.path
            let change = FileChange(path: path, stat: stat, fingerprint: probed.fingerprint, outcome: probed.outcome,
                                    itemID: previous?.itemID)
            if case .failed(let reason) = probed.outcome, FileOutcome.keepsKnownItem(reason), let previous, previous.itemID != nil {
                // An image the file system would not let this scan read (its permissions, an I/O
                // error), or cut short (being copied over, or written in place): its item and its
                // facts stay as they were, to be read again next time, and its row says why
                // (`catalog errors`). A disk that fails for a moment removes nothing, and a photo
                // rewritten in place keeps its id.
                summary.problems.append("\(PathText.display(path)): \(reason); its item is kept as it was, and the next scan reads it again")
                summary.failed += 1
                pending.append(FileChange(path: path, stat: previous.stat, fingerprint: previous.fingerprint,
                                          outcome: .failed(reason + FileOutcome.keptItemNote), itemID: previous.itemID, keepsItem: true))
                continue
            }
            switch probed.outcome {
            case .image: break // counted as added or updated when written
            case .unsupported: summary.unsupported += 1
            case .failed: summary.failed += 1
            }
            // The inode of a known file, changed, at a new path: the same file renamed and
            // touched when its first and last bytes are the same (decided after the walk). With
            // other bytes it is a new file: file systems give a deleted file's inode to the next
            // file made (ext4 at once), and a new photo must not take a deleted one's id.
            if previous == nil, let fingerprint = probed.fingerprint,
               let touched = knownByInode(stat)?.filter({ knownFiles[$0].itemID != nil && knownFiles[$0].fingerprint == fingerprint }),
               !touched.isEmpty {
                moves.append((path, rootID, touched, change, false))
                continue
            }
            // A new image with a known image's size and fingerprint: that file copied here, and
            // moved if it vanished (a copy then a delete).
            if previous == nil, !knownFiles.isEmpty, case .image = probed.outcome, let fingerprint = probed.fingerprint,
               let from = knownByContent(ContentKey(size: stat.size, fingerprint: fingerprint)) {
                moves.append((path, rootID, from, change, true))
                continue
            }
            pending.append(change)
        }
        if pending.count >= options.batchSize { try flush(wait: false) }
    }

    /// A known file at its path on a disk with another number: when it is the same file (inode,
    /// size and time), its disk mounted again and given a new number, of which one file a folder
    /// tells where the disk is.
    private func noteFoundOnAnotherNumber(_ index: Int, now: FileStat, nameLength: Int) {
        let file = knownFiles[index]
        var renumbered = now
        renumbered.device = file.stat.device
        guard renumbered == file.stat else { return } // another file, perhaps on another disk
        self.renumbered.insert(now.device)
        let folder = file.path.prefix(file.path.count - nameLength)
        if let last = found.last, last.device == file.stat.device, last.new.starts(with: folder), !last.new.dropFirst(folder.count).contains(47) {
            return
        }
        found.append((file.stat.device, file.path, file.path))
    }

    func report() {
        progress?(ScanProgress(files: summary.files, committedFiles: writer.committedFiles + summary.moved, elapsedSeconds: Timestamps.seconds(since: start),
                               folder: folder))
    }

    /// Hands the pending changes to the background writer; with `wait`, waits until every
    /// batch is written and counted.
    func flush(wait: Bool) throws(StoreError) {
        if !pending.isEmpty {
            try writer.submit(pending, rootID: rootID)
            pending = []
            pending.reserveCapacity(options.batchSize)
            if options.reportEveryBatch { report() }
        }
        guard wait else { return }
        let counts = try writer.drain()
        summary.added += counts.added
        summary.updated += counts.updated
        summary.removed += counts.removed
        summary.failed += counts.refused // stored as failed: `catalog errors` says why
    }

}
