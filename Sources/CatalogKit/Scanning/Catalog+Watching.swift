import CatalogModel
import CatalogStore
import Foundation
import Synchronization

/// How `catalog scan --watch` and `catalog serve --scan` keep the catalog current.
public struct WatchSettings: Sendable, Hashable {
    /// A round of file events ends after this long without one: a burst of copies is one rescan.
    public var quiet: Duration = .milliseconds(500)
    /// And at the latest this long after its first event (a copy that never pauses still shows).
    public var longest: Duration = .seconds(5)
    /// Full rescans this often when folders cannot be watched (the kernel's watch limit).
    public var fallbackInterval: Duration = .seconds(60)
    /// Watch at most this many folders, as if the kernel's limit were reached there (tests).
    public var folderLimit: Int?
    /// Whether the watch outlasts what a command would stop at (`catalog serve --scan`, which
    /// goes on serving): the first scan waits for another process's scan or import to end, and
    /// a database that cannot be reached is tried again, every second at first, every 30
    /// seconds at most, the changes seen meanwhile kept for when it is back.
    public var patient = false

    public init() {}
}

/// What a watch tells its caller.
public enum WatchEvent: Sendable {
    /// The first scan is done; `folders` are watched.
    case watching(ScanSummary, folders: Int)
    /// The kernel's inotify watch limit was reached: said once; full rescans every `interval`.
    case limitReached(watched: Int, interval: Duration)
    /// Folders were scanned again after file events (or every root, after a lost event or as
    /// the fallback): their paths' bytes (`PathText` prints them).
    case rescanned(ScanSummary, folders: [[UInt8]])
    /// A patient watch cannot write now and tries again (said once until a write succeeds).
    case retrying(StoreError)
}

/// Set from a signal handler or another thread to end a watch after its current rescan.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func stop() { flag.store(true, ordering: .relaxed) }
    public var isStopped: Bool { flag.load(ordering: .relaxed) }
}

extension Catalog {
    /// Scans `roots`, then keeps the catalog current until `stop` is set: file events (Linux
    /// inotify) on a folder rescan that folder's own files once the events pause (a folder that
    /// came or went: everything under it),
    /// with the other folders changed in the same round, of every root, so moves between them
    /// keep their items. Folders created later are watched too. Past the kernel's watch limit, every root
    /// is scanned again each `settings.fallbackInterval`. Blocks; `stop` is looked at at least
    /// every 200 ms between rescans.
    public func watch(_ roots: [String], options: ScanOptions = ScanOptions(), settings: WatchSettings = WatchSettings(),
                      stop: StopFlag, report: (WatchEvent) -> Void) throws(StoreError) {
        // The roots the scans walk: one inside another is watched, as it is scanned, with it.
        let absolute = Scanner.outermost(roots, options: options).walked.map(Scanner.absolute)
        let watcher = try FolderWatcher(includeHidden: options.includeHidden, oneFileSystem: options.oneFileSystem, limit: settings.folderLimit)
        if let file = file.map({ Array(Scanner.absolute($0).utf8) }) {
            let slash = file.lastIndex(of: 47) ?? 0
            let name = file[(slash + 1)...]
            watcher.ignored = (Array(file[..<slash]), Set(SQLiteStore.fileSuffixes.map { name + Array($0.utf8) }))
        }
        // Watches first: a file written during the first scan is seen by one or the other.
        for root in absolute { watcher.add(root: root, folder: Array(root.utf8)) }
        var delay = Duration.seconds(1)
        var said = false
        /// Whether `error` is waited out: sleeps (a while, looking at `stop`) and says so once.
        func waitOut(_ error: StoreError, busyToo: Bool) -> Bool {
            switch error {
            case .unreachable where settings.patient && !error.isFileReplaced: break // a replaced file never comes back
            case .full where settings.patient: break // the disk has room again once someone frees some
            case .busy where settings.patient && busyToo: break
            default: return false
            }
            if !said { report(.retrying(error)) }
            said = true
            let until = ContinuousClock.now + delay
            while !stop.isStopped && ContinuousClock.now < until { Thread.sleep(forTimeInterval: 0.2) }
            delay = min(delay * 2, .seconds(30))
            return true
        }
        var scanned: ScanSummary?
        while scanned == nil && !stop.isStopped {
            do {
                scanned = try scan(roots, options: options)
            } catch {
                guard waitOut(error, busyToo: true) else { throw error }
            }
        }
        guard let first = scanned else { return }
        (delay, said) = (.seconds(1), false)
        report(.watching(first, folders: watcher.folderCount))
        var saidLimit = false
        var lastFull = ContinuousClock.now
        var pending = FolderWatcher.Changes() // rounds not scanned yet: another process held the catalog
        while !stop.isStopped {
            if watcher.limitReached && !saidLimit {
                saidLimit = true
                report(.limitReached(watched: watcher.folderCount, interval: settings.fallbackInterval))
            }
            let changes = watcher.wait(timeout: pending.isEmpty ? .milliseconds(200) : .seconds(1),
                                       quiet: settings.quiet, longest: settings.longest)
            pending.overflowed = pending.overflowed || changes.overflowed
            for (root, folders) in changes.folders {
                for (folder, recursive) in folders { pending.note(folder, root: root, recursive: recursive) }
            }
            for root in watcher.reattach() { pending.note(Array(root.utf8), root: root, recursive: true) }
            do {
                if pending.overflowed || (watcher.limitReached && ContinuousClock.now - lastFull >= settings.fallbackInterval) {
                    // Events were lost: folders made meanwhile are watched too (a folder watched
                    // already keeps its watch), then everything is scanned.
                    if pending.overflowed { for root in absolute { watcher.add(root: root, folder: Array(root.utf8)) } }
                    let summary = try scan(roots, options: options)
                    lastFull = ContinuousClock.now
                    pending = FolderWatcher.Changes()
                    report(.rescanned(summary, folders: absolute.map { Array($0.utf8) }))
                    continue
                }
                if !pending.folders.isEmpty {
                    // Every root's folders in one scan: a file moved from one root to another keeps its item.
                    let byRoot = pending.folders.sorted(by: { $0.key < $1.key }).map { ($0.key, FolderWatcher.Changes.outermost($0.value)) }
                    do {
                        let summary = try Scanner(store: store, options: options).run(folders: byRoot)
                        pending.folders = [:]
                        report(.rescanned(summary, folders: byRoot.flatMap { $0.1.map(\.path) }))
                    } catch .busy where byRoot.count > 1 {
                        // Another process scans one of them (PostgreSQL locks each root): the others,
                        // still in one scan, are not held back for as long as it takes.
                        let free = byRoot.filter { root, _ in (try? store.lockForScanning(roots: [Data(Scanner.absolute(root).utf8)])) != nil }
                        guard !free.isEmpty, free.count < byRoot.count else { continue }
                        let summary = try Scanner(store: store, options: options).run(folders: free)
                        for (root, _) in free { pending.folders[root] = nil }
                        report(.rescanned(summary, folders: free.flatMap { $0.1.map(\.path) }))
                    }
                }
                (delay, said) = (.seconds(1), false)
            } catch .busy {
                continue // another scan or import is writing: again once it is done
            } catch {
                // The changes seen stay pending for when the database is back.
                guard waitOut(error, busyToo: false) else { throw error }
            }
        }
    }
}
