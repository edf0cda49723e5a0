@testable import CatalogKit
import Foundation
import Testing

/// Thumbnails through the catalog: the cache, its keys, orientation from the file, the batch
/// run and `catalog thumbnails` itself.
@Suite struct ThumbnailTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ThumbnailerTests/Fixtures")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(name)) }

    /// The quadrant JPEG with an EXIF block saying orientation `orientation` (APP1 after SOI).
    static func oriented(_ orientation: UInt8) throws -> Data {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let jpeg = [UInt8](try fixture("quadrants.jpg"))
        return Data(Array(jpeg[0..<2]) + segment + Array(jpeg[2...]))
    }

    func cache(_ library: Library) -> ThumbnailCache {
        ThumbnailCache(root: library.root.deletingLastPathComponent().appendingPathComponent("thumbnails").path)
    }

    func entries(_ cache: ThumbnailCache) -> [String] {
        (FileManager.default.enumerator(atPath: cache.root)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix("/") && (try? FileManager.default.attributesOfItem(atPath: cache.root + "/" + $0)[.type] as? FileAttributeType) == .typeRegular }
            .sorted()
    }

    /// A library of one scanned photo, q.jpg: its catalog, a cache, and its item's id.
    func onePhoto() throws -> (library: Library, catalog: Catalog, cache: ThumbnailCache, id: Int64) {
        let library = try Library()
        try library.write("q.jpg", try Self.fixture("quadrants.jpg"))
        _ = try library.scan()
        return (library, try library.catalog(), cache(library), try #require(try library.items()[library.path("q.jpg")]?.id))
    }

    @Test func whenAFileChanges_thenItsThumbnailIsMadeAgainWithoutARescan_andPruneDropsTheOldOne() throws {
        let (library, catalog, cache, id) = try onePhoto()

        let first = try catalog.thumbnail(item: id, size: 256, cache: cache)
        #expect(first.format == .jpeg && first.key.itemID == id && first.key.size == 256)
        #expect(FileManager.default.fileExists(atPath: cache.path(of: first.key)))
        let decoded = try Thumbnailer.decode(bytes: first.bytes)
        #expect((decoded.width, decoded.height) == (256, 171))

        // Read from the cache while the file is the same: an entry replaced on disk is what comes back.
        let other = try Thumbnailer.thumbnail(bytes: [UInt8](try Self.fixture("baseline.jpg")), size: 64)
        try Data(other.bytes).write(to: URL(fileURLWithPath: cache.path(of: first.key)))
        #expect(try catalog.thumbnail(item: id, size: 256, cache: cache).bytes == other.bytes)

        // The file changes in place (same path and inode, other bytes): a new key, a new thumbnail.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.path("q.jpg")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try Self.fixture("baseline.jpg"))
        try handle.close()
        let changed = try catalog.thumbnail(item: id, size: 256, cache: cache)
        #expect(changed.key.version != first.key.version)
        let redecoded = try Thumbnailer.decode(bytes: changed.bytes)
        #expect((redecoded.width, redecoded.height) == (256, 192), "the baseline fixture is 4:3")
        #expect(entries(cache).count == 2)

        let pruned = try catalog.pruneThumbnails(cache: cache)
        #expect((pruned.removed, pruned.kept) == (1, 1))
        #expect(!FileManager.default.fileExists(atPath: cache.path(of: first.key)))
        #expect(FileManager.default.fileExists(atPath: cache.path(of: changed.key)))
    }

    /// Ctrl-C in `catalog thumbnails` exited with the thumbnails being written still in their
    /// temporary files, which `--prune` then removed ten minutes later, counted as thumbnails.
    /// The files from creation to rename are known: removed at the interruption, and none is made
    /// or renamed after it.
    @Test func theFilesBeingWrittenAreRemovedAtAnInterruption_andNoneIsMadeAfterIt() throws {
        let library = try Library()
        let folder = library.root.appendingPathComponent("cache").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files = UnfinishedFiles()
        let (a, b) = (folder + "/.tmp-1-1", folder + "/.tmp-2-2")
        let fdA = try #require(files.create(a)), fdB = try #require(files.create(b))
        close(fdA)
        #expect(files.finish(a, as: folder + "/done.jpg"))
        files.removeAll()
        close(fdB)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["done.jpg"])
        #expect(files.create(folder + "/.tmp-3-3") == nil && errno == ECANCELED)
        #expect(!files.finish(b, as: folder + "/late.jpg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["done.jpg"])
    }

    /// What a killed process leaves (a temporary file over ten minutes old) is removed by
    /// `--prune`, but not counted among the thumbnails removed.
    @Test func pruneRemovesAStaleTemporaryFile_withoutCountingIt() throws {
        let (library, catalog, cache, id) = try onePhoto()
        defer { withExtendedLifetime(library) {} } // its folder holds the catalog
        let made = try catalog.thumbnail(item: id, size: 128, cache: cache)
        let stale = (cache.path(of: made.key) as NSString).deletingLastPathComponent + "/.tmp-\(id)-42"
        try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: stale))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale)
        let pruned = try catalog.pruneThumbnails(cache: cache)
        #expect((pruned.removed, pruned.bytesRemoved, pruned.kept) == (0, 0, 1))
        #expect(!FileManager.default.fileExists(atPath: stale))
    }

    /// The four quadrants (red, green / blue, yellow) turned by EXIF orientation 6: blue, red /
    /// yellow, green, in a portrait thumbnail.
    @Test func whenAFileSaysItIsTurned_thenItsThumbnailIsUpright() throws {
        let library = try Library()
        try library.write("turned.jpg", try Self.oriented(6))
        _ = try library.scan()
        let id = try #require(try library.items()[library.path("turned.jpg")]?.id)
        let thumbnail = try library.catalog().thumbnail(item: id, size: 128, cache: cache(library))
        let pixels = try Thumbnailer.decode(bytes: thumbnail.bytes)
        #expect((pixels.width, pixels.height) == (85, 128))
        let topLeft = pixels[pixels.width / 4, pixels.height / 4], topRight = pixels[3 * pixels.width / 4, pixels.height / 4]
        #expect(topLeft.blue > 200 && topLeft.red < 60, "\(topLeft)")
        #expect(topRight.red > 200 && topRight.green < 60, "\(topRight)")
    }

    @Test func whenAnItemHasNoThumbnail_thenTheProblemSaysWhy() throws {
        let library = try Library()
        try library.write("q.jpg", try Self.fixture("quadrants.jpg"))
        _ = try library.scan()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 1, key: "remote", width: 10, height: 20)])
        let imported = try #require(try catalog.items(order: .path).first { PathText.display($0.key) == "remote" }?.id)
        let id = try #require(try library.items()[library.path("q.jpg")]?.id)
        let cache = cache(library)
        #expect(throws: ThumbnailProblem.imported(imported)) { try catalog.thumbnail(item: imported, size: 256, cache: cache) }
        #expect(throws: ThumbnailProblem.noSuchItem(999)) { try catalog.thumbnail(item: 999, size: 256, cache: cache) }
        #expect(throws: ThumbnailProblem.unsupportedSize(300)) { try catalog.thumbnail(item: id, size: 300, cache: cache) }
        try library.write("other.jpg", try Self.fixture("quadrants.jpg")) // before q.jpg's inode is free
        try FileManager.default.removeItem(atPath: library.path("q.jpg"))
        #expect(throws: ThumbnailProblem.gone(id, path: library.path("q.jpg"), reason: "No such file or directory")) {
            try catalog.thumbnail(item: id, size: 256, cache: cache)
        }
        // Another file put at its path: the message says once what to do.
        try FileManager.default.createSymbolicLink(atPath: library.path("q.jpg"), withDestinationPath: library.path("other.jpg"))
        let replaced = ThumbnailProblem.gone(id, path: library.path("q.jpg"), reason: "another file is at its path since the scan")
        #expect(throws: replaced) { try catalog.thumbnail(item: id, size: 256, cache: cache) }
        #expect(replaced.description.components(separatedBy: "run `catalog scan` again").count == 2, "\(replaced)")
        // A FIFO there, or a link to a device: another file too (the server's 404), not an image
        // that cannot be read (422).
        try FileManager.default.removeItem(atPath: library.path("q.jpg"))
        try #require(mkfifo(library.path("q.jpg"), 0o644) == 0)
        let fifo = ThumbnailProblem.gone(id, path: library.path("q.jpg"), reason: "another file is at its path since the scan (not a regular file)")
        #expect(throws: fifo) { try catalog.thumbnail(item: id, size: 256, cache: cache) }
        try FileManager.default.removeItem(atPath: library.path("q.jpg"))
        try FileManager.default.createSymbolicLink(atPath: library.path("q.jpg"), withDestinationPath: "/dev/zero")
        #expect(throws: fifo) { try catalog.thumbnail(item: id, size: 256, cache: cache) }
    }

    /// A cache that cannot be written (here a file where its folder should be) says why in the
    /// system's words. A thumbnail asked for is made all the same, marked as not cached; a run
    /// that fills the cache stops at the first, as every next one would fail too.
    @Test func whenTheCacheCannotBeWritten_thenAThumbnailIsStillMade_butARunStopsAndSaysWhy() throws {
        let library = try Library()
        try library.write("q.jpg", try Self.fixture("quadrants.jpg"))
        _ = try library.scan()
        let catalog = try library.catalog()
        let id = try #require(try library.items()[library.path("q.jpg")]?.id)
        let blocker = library.root.deletingLastPathComponent().appendingPathComponent("a-file")
        try Data("x".utf8).write(to: blocker)
        let cache = ThumbnailCache(root: blocker.path + "/thumbnails")
        let problem = ThumbnailProblem.cacheUnwritable(path: cache.root, reason: "\(blocker.path): Not a directory")
        let thumbnail = try catalog.thumbnail(item: id, size: 128, cache: cache)
        #expect(thumbnail.made && thumbnail.notCached == problem)
        #expect(try Thumbnailer.decode(bytes: thumbnail.bytes).width == 128)
        #expect(throws: problem) { try catalog.makeThumbnails(size: 128, missingOnly: false, cache: cache) }
        // Still so when a file's own failure comes after it (the run stopped only when the
        // cache's was the last one met, and printed one line an item instead).
        try library.write("z.jpg", try Self.fixture("quadrants.jpg"))
        _ = try library.scan()
        try FileManager.default.removeItem(atPath: library.path("z.jpg"))
        #expect(throws: problem) { try catalog.makeThumbnails(size: 128, missingOnly: false, cache: cache, workers: 1) }
        #expect(problem.description == "cannot write the thumbnail cache at \(blocker.path)/thumbnails: \(blocker.path): Not a directory")
        // A cache given relative to the working folder says the same (Foundation's "error 512" did).
        let relative = try BuiltTool.run(["-c", "cd \"$1\" && exec \"$0\" thumbnails --db \"$2\" --cache a-file/thumbnails",
                                          BuiltTool.catalog.path, blocker.deletingLastPathComponent().path, library.catalogPath],
                                         executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(relative.status == 1 && relative.stderr.contains("cannot write the thumbnail cache at a-file/thumbnails: ./a-file: Not a directory"), "\(relative.stderr)")
        // A folder that cannot be made (here in /sys, where not even root may: as a folder this
        // user may not write) says the system's reason for it, not Foundation's "You don't have
        // permission".
        let refused = ThumbnailCache(root: "/sys/catalog-thumbnails-\(UUID().uuidString)")
        #expect(try catalog.thumbnail(item: id, size: 128, cache: refused).notCached
                == .cacheUnwritable(path: refused.root, reason: "\(refused.root): Operation not permitted"))
    }

    @Test func whenTheWholeCatalogIsDone_thenEveryFileHasOne_failuresAreReported_andMissingOnlySkips() throws {
        let library = try Library()
        for name in ["baseline.jpg", "palette.png", "grayscale.jpg"] { try library.write(name, try Self.fixture(name)) }
        try library.write("cut.jpg", try Self.fixture("baseline.jpg").prefix(3000))
        _ = try library.scan()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 1, key: "remote", width: 10, height: 20)])
        let cache = cache(library)

        let first = try catalog.makeThumbnails(size: 128, missingOnly: false, cache: cache, workers: 2)
        #expect((first.made, first.cached, first.withoutFile) == (3, 0, 1))
        let cutID = try #require(try library.items()[library.path("cut.jpg")]?.id)
        #expect(first.failed == [.unusable(cutID, path: library.path("cut.jpg"), .truncated(detail: "the JPEG data ends before the image does"))])
        let files = entries(cache)
        #expect(files.count == 3 && files.allSatisfy { $0.hasPrefix("128/") && !$0.contains(".tmp-") }, "\(files)")
        let formats = try files.map { try Thumbnailer.thumbnail(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: cache.root + "/" + $0))), size: 64).format }
        #expect(formats.sorted { $0.rawValue < $1.rawValue } == [.jpeg, .jpeg, .png], "the palette's transparency makes a PNG")

        let again = try catalog.makeThumbnails(size: 128, missingOnly: true, cache: cache)
        #expect((again.made, again.cached, again.failed.count, again.bytesWritten) == (0, 3, 1, 0))
    }

    /// The real binary: a summary on stdout, one line per failed file on stderr and nothing from
    /// libjpeg or libpng, exit status 1 when a file failed, 2 for a size the cache does not keep.
    @Test func whenTheCommandRuns_thenItReportsEachFailureAndSummarizes() throws {
        let library = try Library()
        try library.write("baseline.jpg", try Self.fixture("baseline.jpg"))
        // Three stray bytes before the marker after APP0: libjpeg warns ("Corrupt JPEG data: 3
        // extraneous bytes before marker") and decodes the image; the warning stays inside.
        var noisy = [UInt8](try Self.fixture("baseline.jpg"))
        let afterApp0 = 4 + Int(noisy[4]) << 8 + Int(noisy[5])
        noisy.insert(contentsOf: [0x00, 0x01, 0x02], at: afterApp0)
        try library.write("noisy.jpg", Data(noisy))
        try library.write("cut.png", try Self.fixture("rgb.png").prefix(2000))
        _ = try library.scan()
        let root = cache(library).root
        let run = try BuiltTool.run(["thumbnails", "--db", library.catalogPath, "--cache", root, "--json"])
        #expect(run.status == 1)
        let summary = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(summary["made"] as? Int == 2 && summary["failed"] as? Int == 1 && summary["cache"] as? String == root, "\(summary)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("error: item ") && lines[0].contains("truncated image") && lines[0].hasSuffix("cut.png"),
                "\(run.stderr)")
        let text = try BuiltTool.run(["thumbnails", "--db", library.catalogPath, "--cache", root, "--missing-only"])
        #expect(String(decoding: text.stdout, as: UTF8.self).hasPrefix("made 0, already cached 2, failed 1, imported without a file 0\n"))
        let bad = try BuiltTool.run(["thumbnails", "--db", library.catalogPath, "--size", "300"])
        #expect(bad.status == 2 && bad.stderr.contains("--size must be one of 64, 128, 256, 512, 1024, got \"300\""))
        let empty = try BuiltTool.run(["thumbnails", "--db", library.catalogPath, "--cache", ""])
        #expect(empty.status == 2 && empty.stderr.contains("--cache must name a folder, got an empty path"), "it wrote under / (\(empty.stderr))")
    }

    /// Two catalogs under one cache home each keep their thumbnails in a folder of their own:
    /// `--prune` with one leaves the other's (with one folder for all, it removed every
    /// thumbnail its own catalog did not know). A scan of the home with hidden files does not
    /// take the thumbnails for photos (each run of thumbnails then scan added them again).
    @Test func whenTwoCatalogsShareACacheHome_thenPruningOneKeepsTheOthers_andAScanPassesTheCacheOver() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-home-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["HOME": home, "XDG_CACHE_HOME": "", "XDG_DATA_HOME": "", "CATALOG_DB": ""]
        let (a, b) = (try Library(), try Library())
        try a.write("a.jpg", try Self.fixture("baseline.jpg"))
        try b.write("b.png", try Self.fixture("rgb.png"))
        for library in [a, b] {
            #expect(try BuiltTool.run(["scan", "--db", library.catalogPath, library.root.path], environment: environment).status == 0)
            #expect(try BuiltTool.run(["thumbnails", "--db", library.catalogPath], environment: environment).status == 0)
        }
        let pruned = try BuiltTool.run(["thumbnails", "--db", b.catalogPath, "--prune"], environment: environment)
        #expect(String(decoding: pruned.stdout, as: UTF8.self).hasPrefix("removed 0 thumbnails"), "\(pruned)")
        let again = try BuiltTool.run(["thumbnails", "--db", a.catalogPath, "--missing-only"], environment: environment)
        #expect(String(decoding: again.stdout, as: UTF8.self).hasPrefix("made 0, already cached 1,"), "a's thumbnail kept: \(again)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/catalog/thumbnails")
        #expect(folders.count == 2 && folders.allSatisfy { $0.range(of: #"^[0-9A-Za-z_]+-[0-9a-f]{16}$"#, options: .regularExpression) != nil }, "\(folders)")
        // The home scanned with its hidden folders: the cache's JPEGs are no photos.
        try FileManager.default.createDirectory(atPath: home + "/Pictures", withIntermediateDirectories: true)
        try Self.fixture("baseline.jpg").write(to: URL(fileURLWithPath: home + "/Pictures/p.jpg"))
        let catalog = home + "/home.sqlite"
        let scanned = try BuiltTool.run(["scan", "--db", catalog, "--include-hidden", home, "--json"], environment: environment)
        #expect(String(decoding: scanned.stdout, as: UTF8.self).contains(#""added":1,"#), "\(scanned)")
    }
}
