import ArgumentParser
import CatalogKit
import Foundation

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Index the images under one or more folders.",
        discussion: """
            Reads each JPEG, PNG, WebP, GIF, HEIC and AVIF file's size, orientation and date from its header and stores \
            it in the catalog. Rescans are incremental: a file whose device, inode, size and \
            modification time did not change is not opened again; moved or renamed files keep \
            their item id (moves are written a batch at a time, one generation a batch); files gone \
            from a folder that was read completely are removed. A root that is missing (an \
            unmounted disk), or an empty mount point on another disk than every file known under \
            it, removes nothing, is reported, and makes the exit status 1 once the other roots are \
            scanned; so does a root that is a file, not a \
            folder (`catalog probe FILE` reads one file). With no root that can be scanned and no \
            catalog at --db yet, none is made. Broken files are recorded (see \
            `catalog errors`) and the scan goes on. Hidden files and symbolic links are skipped \
            unless asked for. Safe to interrupt: the next scan completes the work.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Argument(help: "Folders to scan, recursively.")
    var roots: [String]

    @Flag(help: "Also scan files and folders whose names start with a dot.")
    var includeHidden = false

    @Flag(help: "Follow symbolic links (each folder is still entered once, so loops end).")
    var followSymlinks = false

    @Flag(help: ArgumentHelp("Enter no folder on another file system than its root's (as `find -xdev`).",
                             discussion: "A mount point under a root (another disk, a network share, /proc) is named in a warning and skipped; "
                                 + "what the catalog holds under it is kept, not removed."))
    var oneFileSystem = false

    @Flag(help: ArgumentHelp("Remove from the catalog the files this scan does not walk though they are still there.",
                             discussion: "Files an earlier scan found with --include-hidden or --follow-symlinks are kept, with a warning, "
                                 + "by a scan without that option (a cron job missing a flag loses no items); --prune removes them."))
    var prune = false

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    @Flag(help: ArgumentHelp("After the scan, keep the catalog current until Ctrl-C, SIGTERM or SIGHUP.",
                             discussion: """
                                 File events (inotify) on a folder rescan that folder's files once the events pause for \
                                 half a second (a burst of copies is one rescan); folders created later are watched and \
                                 scanned whole. One \
                                 line per rescan on stdout. Past the kernel's watch limit (fs.inotify.max_user_watches) \
                                 it says so once and rescans every root every 60 seconds.
                                 """))
    var watch = false

    /// Watch at most this many folders, as if the kernel's limit were reached (tests).
    @Option(help: .hidden)
    var watchFolderLimit: Int?

    /// Seconds between full rescans past the watch limit (tests; 60 by default).
    @Option(help: .hidden)
    var rescanInterval: Int?

    @Option(help: .hidden)
    var batchSize = ScanOptions().batchSize

    /// One `committed N` line on stderr after every batch: what tests wait on to act mid-scan.
    @Flag(help: .hidden)
    var progressLines = false

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if roots.contains("") { throw ValidationError(Self.emptyRoot) }
    }

    /// An empty root would be the current folder: an unset shell variable (`catalog scan "$DIR"`)
    /// must not scan wherever the command happens to run.
    static let emptyRoot = "a folder to scan is empty (an unset variable?): give the folders to scan, or . for the current one"

    func run() throws {
        var options = ScanOptions(includeHidden: includeHidden, followSymlinks: followSymlinks)
        options.oneFileSystem = oneFileSystem
        options.prune = prune
        options.passOver = [ThumbnailCache.defaultRoot()] // every catalog's thumbnails: no photos
        options.batchSize = batchSize
        options.reportEveryBatch = progressLines
        // No root to scan and no catalog yet (no file, or a PostgreSQL database without its
        // tables): a typo makes no empty catalog.
        let problems = roots.compactMap(Scanner.unscannable)
        if !roots.isEmpty, problems.count == roots.count, !hasCatalog() {
            for problem in problems { printError("error: \(problem)") }
            printError("error: no catalog is made at \(catalog.path): there is nothing to scan into it")
            throw ExitCode(1)
        }
        if watch { return try runWatching(options) }
        let opened = try catalog.open()
        // Held weakly: the handler outlives the scan, and the store closes (folding its -wal
        // into the file) only when the last reference goes.
        Interruption.announce(Self.interruptedScan) { [weak opened] end in
            guard let opened else { end() }
            opened.endKeepingCommittedInItsFile(end)
        }
        let interactive = isatty(STDERR_FILENO) == 1 && !progressLines
        let summary = try opened.scan(roots, options: options, progress: progressLines ? { progress in
            printError("committed \(progress.committedFiles)")
        } : interactive ? { progress in
            let rate = progress.elapsedSeconds > 0 ? Int(Double(progress.files) / progress.elapsedSeconds) : 0
            printProgress("\(progress.files) files  \(rate) files/s  \(PathText.display(progress.folder).suffix(60))")
        } : nil)
        if interactive { printProgress("") }
        try report(summary)
    }

    /// Whether --db holds a catalog already; a PostgreSQL catalog that cannot be opened for
    /// another reason counts as one, so that the scan says that reason.
    func hasCatalog() -> Bool {
        guard CatalogLocation.isPostgres(catalog.path) else { return FileManager.default.fileExists(atPath: catalog.path) }
        do {
            _ = try Catalog.openExisting(at: catalog.path)
            return true
        } catch {
            return !error.isNoCatalog
        }
    }

    /// The summary of a scan, then its problems; exit status 1 if a root could not be scanned.
    func report(_ summary: ScanSummary) throws {
        Output.written = "the scan itself was written"
        for problem in summary.problems { printError("warning: \(problem)") }
        if json {
            print("""
                {"added":\(summary.added),"updated":\(summary.updated),"moved":\(summary.moved),"removed":\(summary.removed),\
                "unchanged":\(summary.unchanged),"unsupported":\(summary.unsupported),"failed":\(summary.failed),"failing":\(summary.failing),\
                "files":\(summary.files),"elapsed":\(rounded(summary.elapsedSeconds, 3)),"filesPerSecond":\(Int(summary.filesPerSecond)),\
                "generation":\(summary.generation),"problems":[\(summary.problems.map(PathText.jsonString).joined(separator: ","))],\
                "unscannedRoots":[\(summary.unscannedRoots.map(PathText.jsonString).joined(separator: ","))]}
                """)
        } else {
            print("""
                added \(summary.added), updated \(summary.updated), moved \(summary.moved), removed \(summary.removed), \
                unchanged \(summary.unchanged), unsupported \(summary.unsupported), failed \(summary.failed)
                \(summary.files) \(summary.files == 1 ? "file" : "files") in \(rounded(summary.elapsedSeconds, 2)) s (\(Int(summary.filesPerSecond)) files/s)
                """)
            if summary.failed > 0 || (summary.failing > 0 && summary.files > 0) {
                // Files that failed before and did not change are not read again, and fail still.
                let earlier = summary.failing - summary.failed
                func files(_ count: Int) -> String { "\(count) \(count == 1 ? "file" : "files")" }
                print(summary.failed == 0
                    ? "run `catalog errors` to see why \(files(earlier)) \(earlier == 1 ? "fails: it" : "fail: they") failed before and did not change since"
                    : "run `catalog errors` to see why \(files(summary.failed)) failed"
                        + (earlier > 0 ? " (and \(earlier) that failed before and did not change since)" : ""))
            }
        }
        // After the summary: a root that could not be scanned (a typo in a cron job, an
        // unmounted disk) must not pass unnoticed.
        for root in summary.unscannedRoots { printError("error: \(root)") }
        if !summary.unscannedRoots.isEmpty { throw ExitCode(1) }
    }
}

extension Scan {
    /// What an interrupted scan keeps.
    static let interruptedScan = "the batches written so far are kept; the same scan again finishes the work, without reading them again"

    /// `--watch`: the first scan's summary as without it, then one line per rescan until
    /// SIGINT, SIGTERM or SIGHUP (its terminal closed), which end it after the rescan under way.
    /// During the first scan they end it at once, as they end a scan without --watch (it went
    /// on to the end of the first scan, minutes on a large library, before it stopped).
    func runWatching(_ options: ScanOptions) throws {
        let stop = StopFlag()
        let firstScanned = StopFlag()
        let opened = try catalog.open()
        let signals = Interruption.handle { number in
            guard firstScanned.isStopped else {
                Interruption.interrupted(number, kept: Self.interruptedScan) { [weak opened] end in
                    guard let opened else { end() }
                    opened.endKeepingCommittedInItsFile(end)
                }
                return
            }
            stop.stop()
        }
        defer { signals.forEach { $0.cancel() } }
        var failedRoots = false
        var settings = WatchSettings()
        settings.folderLimit = watchFolderLimit
        if let rescanInterval { settings.fallbackInterval = .seconds(rescanInterval) }
        try opened.watch(roots, options: options, settings: settings, stop: stop) { event in
            switch event {
            case .watching(let summary, let folders):
                firstScanned.stop()
                do { try report(summary) } catch { failedRoots = true }
                guard folders > 0 else {
                    // No root could be scanned: nothing would ever be watched (exit 1, as without --watch).
                    printError("error: no root can be watched; stopping")
                    stop.stop()
                    return
                }
                printError("watching \(folders) folder\(folders == 1 ? "" : "s"); Ctrl-C stops")
            case .limitReached(let watched, let interval):
                printError("warning: the kernel's inotify watch limit (fs.inotify.max_user_watches) was reached after \(watched) "
                    + "folders; the others are not watched: every root is scanned again every \(interval.components.seconds) s")
            case .rescanned(let summary, let folders):
                let shown = folders.count == 1 ? PathText.display(folders[0]) : "\(folders.count) folders"
                if json {
                    print(#"{"rescanned":[\#(folders.map(PathText.jsonString).joined(separator: ","))],"added":\#(summary.added),"#
                        + #""updated":\#(summary.updated),"moved":\#(summary.moved),"removed":\#(summary.removed),"#
                        + #""failed":\#(summary.failed),"files":\#(summary.files),"generation":\#(summary.generation)}"#)
                } else {
                    print("rescanned \(shown): added \(summary.added), updated \(summary.updated), moved \(summary.moved), "
                        + "removed \(summary.removed), failed \(summary.failed); generation \(summary.generation)")
                }
                for problem in summary.problems { printError("warning: \(problem)") }
                for root in summary.unscannedRoots { printError("warning: \(root)") }
            case .retrying(let error): // not patient: never said
                printError("warning: \(error)")
            }
            fflush(nil) // every stream: a script reads each line as it comes
        }
        if failedRoots { throw ExitCode(1) }
    }
}

func rounded(_ value: Double, _ places: Int) -> String {
    String(format: "%.\(places)f", value)
}
