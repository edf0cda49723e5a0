import CatalogModel
import Dispatch
import Foundation
import Thumbnailer

/// What `catalog thumbnails` did.
public struct ThumbnailSummary: Sendable {
    public var size: Int
    /// Thumbnails made (and written to the cache).
    public var made: Int
    /// Items whose thumbnail was in the cache already (`--missing-only`).
    public var cached: Int
    /// Items whose file is gone or cannot be made into a thumbnail, with why.
    public var failed: [ThumbnailProblem]
    /// Imported items: no file, so no thumbnail.
    public var withoutFile: Int
    public var bytesWritten: Int
    public var elapsedSeconds: Double

    public var madePerSecond: Double { elapsedSeconds > 0 ? Double(made) / elapsedSeconds : 0 }
}

/// Progress while thumbnails are made.
public struct ThumbnailProgress: Sendable {
    public var done: Int
    public var total: Int
    public var elapsedSeconds: Double
}

/// What `catalog thumbnails --prune` did.
public struct ThumbnailPruneSummary: Sendable {
    /// Entries of items that are gone or imported, or whose file changed since.
    public var removed: Int
    public var bytesRemoved: Int64
    public var kept: Int
}

extension Catalog {
    /// Makes the `size` thumbnail of every scanned item on `workers` threads (all cores by
    /// default, nil), a page of items at a time; with `missingOnly`, items whose thumbnail is cached
    /// for their file as it is now are skipped. A file that fails is reported and the run goes on.
    public func makeThumbnails(size: Int, missingOnly: Bool, cache: ThumbnailCache, quality: Int = Thumbnailer.defaultQuality,
                               workers: Int? = nil,
                               progress: (@Sendable (ThumbnailProgress) -> Void)? = nil) throws -> ThumbnailSummary {
        guard ThumbnailCache.sizes.contains(size) else { throw ThumbnailProblem.unsupportedSize(size) }
        let start = ContinuousClock.now
        let stats = try store.stats()
        let total = stats.items - stats.importedItems
        let tally = Tally(total: total, start: start, progress: progress)
        var after: Int64 = 0
        while true {
            let files = try store.itemFiles(after: after, limit: 2048)
            guard let last = files.last else { break }
            after = last.itemID
            let threads = max(1, min(workers ?? ProcessInfo.processInfo.activeProcessorCount, files.count))
            DispatchQueue.concurrentPerform(iterations: threads) { worker in
                for index in stride(from: worker, to: files.count, by: threads) {
                    if tally.unwritable != nil { break } // every next one would fail too
                    do throws(ThumbnailProblem) {
                        let thumbnail = try Self.thumbnail(of: files[index], size: size, cache: cache, quality: quality, reuse: missingOnly)
                        if let problem = thumbnail.notCached { throw problem } // what this run is for
                        tally.record(made: thumbnail.made, bytes: thumbnail.made ? thumbnail.bytes.count : 0)
                    } catch {
                        tally.record(error)
                    }
                }
            }
            if let unwritable = tally.unwritable { throw unwritable }
        }
        return ThumbnailSummary(size: size, made: tally.made, cached: tally.cached, failed: tally.failures, withoutFile: stats.importedItems,
                                bytesWritten: tally.bytes, elapsedSeconds: Timestamps.seconds(since: start))
    }

    /// Removes cache entries whose item is gone or imported, or whose file changed (another
    /// device, inode, size or modification time than now), and temporary files older than ten
    /// minutes (left by a process that died mid-write).
    public func pruneThumbnails(cache: ThumbnailCache) throws -> ThumbnailPruneSummary {
        var current: [Int64: String] = [:]
        var after: Int64 = 0
        while true {
            let files = try store.itemFiles(after: after, limit: 4096)
            guard let last = files.last else { break }
            after = last.itemID
            for file in files {
                let fd = file.openForReading()
                guard fd >= 0 else { continue }
                var status = stat()
                if fstat(fd, &status) == 0 { current[file.itemID] = ThumbnailKey.version(of: status) }
                close(fd)
            }
        }
        var summary = ThumbnailPruneSummary(removed: 0, bytesRemoved: 0, kept: 0)
        let staleBefore = Date().addingTimeInterval(-600)
        for entry in cache.entries() {
            let attributes = try? FileManager.default.attributesOfItem(atPath: entry.path)
            let bytes = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            let remove: Bool
            if let key = entry.key {
                remove = current[key.itemID] != key.version
            } else {
                let name = (entry.path as NSString).lastPathComponent
                remove = name.hasPrefix(".tmp-") && ((attributes?[.modificationDate] as? Date).map { $0 < staleBefore } ?? false)
            }
            if remove, unlink(entry.path) == 0 {
                // A temporary file left by a process killed while it wrote is no thumbnail: not counted.
                if entry.key != nil {
                    summary.removed += 1
                    summary.bytesRemoved += bytes
                }
            } else if entry.key != nil {
                summary.kept += 1
            }
        }
        return summary
    }
}

/// Counts from many threads, and the progress callback at most ten times a second.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var made = 0, cached = 0, bytes = 0
    private(set) var failures: [ThumbnailProblem] = []
    /// The first `.cacheUnwritable`: the cache's fault, not the file's, and the run's end.
    private var firstUnwritable: ThumbnailProblem?
    var unwritable: ThumbnailProblem? { lock.withLock { firstUnwritable } }
    private let total: Int
    private let start: ContinuousClock.Instant
    private let progress: (@Sendable (ThumbnailProgress) -> Void)?
    private var lastReport: ContinuousClock.Instant

    init(total: Int, start: ContinuousClock.Instant, progress: (@Sendable (ThumbnailProgress) -> Void)?) {
        self.total = total
        self.start = start
        self.progress = progress
        lastReport = start
    }

    func record(made: Bool, bytes: Int) {
        lock.withLock {
            if made { self.made += 1 } else { cached += 1 }
            self.bytes += bytes
            report()
        }
    }

    func record(_ error: ThumbnailProblem) {
        lock.withLock {
            if case .cacheUnwritable = error {
                if firstUnwritable == nil { firstUnwritable = error }
                return
            }
            failures.append(error)
            report()
        }
    }

    /// Called with the lock held.
    private func report() {
        guard let progress else { return }
        let now = ContinuousClock.now
        guard now - lastReport >= .milliseconds(100) else { return }
        lastReport = now
        progress(ThumbnailProgress(done: made + cached + failures.count, total: total, elapsedSeconds: Timestamps.seconds(since: start)))
    }
}
