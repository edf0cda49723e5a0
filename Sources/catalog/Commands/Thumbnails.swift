import ArgumentParser
import CatalogKit
import Foundation

struct Thumbnails: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the thumbnails of every scanned item, or prune the thumbnail cache.",
        discussion: """
            Thumbnails fit a box of --size pixels (64, 128, 256, 512 or 1024; default 256), in \
            display orientation (EXIF 1-8 applied), never enlarged. JPEGs are decoded at the \
            smallest DCT scale that covers the box, then reduced by area averaging; the result is \
            a JPEG (quality 80 by default), or a PNG when the image has transparency (its alpha \
            is kept, not composited on a background). They are cached in a folder of the catalog's own \
            under $XDG_CACHE_HOME/catalog/thumbnails (else ~/.cache/catalog/thumbnails), keyed by item \
            and by the file's device, inode, size and modification time: a file that changes \
            gets a new thumbnail, never a stale one. Entries are written to a temporary file and \
            renamed, never left half written. Runs on all cores; a file that fails is reported \
            and the run goes on (exit status 1 at the end). Imported items have no file and so \
            no thumbnail. --prune removes entries of items that are gone or imported, or whose \
            file changed.

            Memory stays bounded whatever a header declares: a baseline JPEG is decoded a few \
            rows at a time at its reduced scale; a progressive JPEG whose coefficients need more \
            than 512 MiB, a PNG, GIF, HEIC or AVIF image or an animated WebP's canvas of more \
            than 67,108,864 pixels (8192 x 8192), and a file over 1 GiB are refused with an error ("too large"), never \
            decoded.
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(parsing: .unconditional, help: "The box, in pixels: 64, 128, 256, 512 or 1024.")
    var size = Thumbnailer.defaultSize

    @Flag(help: "Only make thumbnails that are not cached for the file as it is now.")
    var missingOnly = false

    @Flag(help: "Remove cache entries of items that are gone or imported, or whose file changed; make nothing.")
    var prune = false

    @Option(parsing: .unconditional, help: "JPEG quality, 1 to 100.")
    var quality = Thumbnailer.defaultQuality

    @Option(name: [.long, .customLong("thumbnail-cache")],
            help: ArgumentHelp("The cache folder (also --thumbnail-cache, as `catalog serve` names it; default: the catalog's own under $XDG_CACHE_HOME/catalog/thumbnails, else ~/.cache/catalog/thumbnails).", valueName: "folder"))
    var cache: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Threads (default: one per core).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Print the summary as one JSON object on stdout.")
    var json = false

    func validate() throws {
        guard ThumbnailCache.sizes.contains(size) else {
            throw ValidationError("--size must be one of \(ThumbnailCache.sizes.map(String.init).joined(separator: ", ")), got \"\(size)\"")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100, got \"\(quality)\"") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \"\(jobs)\"") }
        if prune && missingOnly { throw ValidationError("--prune makes nothing: it does not go with --missing-only") }
        if cache?.isEmpty == true { throw ValidationError("--cache must name a folder, got an empty path (an unset shell variable?)") }
    }

    func run() throws {
        Interruption.announce {
            ThumbnailCache.removeUnfinished() // the thumbnails being written: no temporary file is left
            return "the thumbnails made so far are cached; `catalog thumbnails --missing-only` makes the rest"
        }
        let cache = ThumbnailCache(root: self.cache ?? ThumbnailCache.defaultRoot(forCatalog: self.catalog.path))
        let catalog = try catalog.openExisting()
        if prune {
            let summary = try catalog.pruneThumbnails(cache: cache)
            print(json ? """
                {"removed":\(summary.removed),"bytesRemoved":\(summary.bytesRemoved),"kept":\(summary.kept)}
                """ : "removed \(summary.removed) thumbnails (\(summary.bytesRemoved) bytes), kept \(summary.kept)")
            return
        }
        let interactive = isatty(STDERR_FILENO) == 1
        let line: @Sendable (ThumbnailProgress) -> Void = { progress in
            let rate = progress.elapsedSeconds > 0 ? Int(Double(progress.done) / progress.elapsedSeconds) : 0
            printProgress("\(progress.done)/\(progress.total) thumbnails  \(rate)/s")
        }
        let summary = try catalog.makeThumbnails(size: size, missingOnly: missingOnly, cache: cache, quality: quality, workers: jobs,
                                                 progress: interactive ? line : nil)
        if interactive { printProgress("") }
        for problem in summary.failed { printError("error: \(problem)") }
        if json {
            print("""
                {"size":\(summary.size),"made":\(summary.made),"cached":\(summary.cached),"failed":\(summary.failed.count),\
                "withoutFile":\(summary.withoutFile),"bytesWritten":\(summary.bytesWritten),\
                "elapsed":\(rounded(summary.elapsedSeconds, 3)),"madePerSecond":\(Int(summary.madePerSecond)),\
                "cache":\(PathText.jsonString(cache.root))}
                """)
        } else {
            print("""
                made \(summary.made), already cached \(summary.cached), failed \(summary.failed.count), \
                imported without a file \(summary.withoutFile)
                \(summary.size)-pixel thumbnails in \(rounded(summary.elapsedSeconds, 2)) s (\(Int(summary.madePerSecond))/s), \
                \(summary.bytesWritten) bytes written to \(cache.root)
                """)
        }
        if !summary.failed.isEmpty { throw ExitCode(1) }
    }
}
