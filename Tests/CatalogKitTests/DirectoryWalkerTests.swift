@testable import CatalogKit
import Foundation
import Testing

/// A first scan turns the walk's stats of files off: every file is new, and the open file's
/// `fstat` gives what the walk's `fstatat` would. What the walk still stats, and what a file
/// listed without a stat gets when it is opened.
@Suite struct DirectoryWalkerTests {
    /// The files a walk of `root` hands over, by path relative to it, each with its stat if the
    /// walk made one.
    static func walk(_ root: URL, fileStats: Bool, followSymlinks: Bool = false) throws -> [String: DirectoryWalker.File] {
        var walker = DirectoryWalker(includeHidden: false, followSymlinks: followSymlinks)
        if !fileStats { walker.fileStats.turnOff() }
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        var files: [String: DirectoryWalker.File] = [:]
        walker.walk(fd: fd, path: Array(root.path.utf8)) { event in
            guard case .files(let batch) = event else { return }
            for file in batch { files[String(decoding: file.path.dropFirst(root.path.utf8.count + 1), as: UTF8.self)] = file }
        }
        return files
    }

    static func fileStat(_ path: String) throws -> FileStat {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return Scanner.fileStat(info)
    }

    @Test func withStatsOff_regularFilesComeWithoutOne_linksFollowedAndFoldersAreStillStated() throws {
        let library = try Library()
        let png = try Library.fixture("rgb.png")
        try library.write("a.png", png)
        try library.write("sub/deeper/b.png", png)
        try #require(symlink(library.path("a.png"), library.path("link.png")) == 0)
        try #require(mkfifo(library.path("pipe"), 0o644) == 0)

        let stated = try Self.walk(library.root, fileStats: true)
        #expect(Set(stated.keys) == ["a.png", "sub/deeper/b.png"])
        #expect(stated.values.allSatisfy { $0.stat != nil })

        let unstated = try Self.walk(library.root, fileStats: false)
        #expect(Set(unstated.keys) == ["a.png", "sub/deeper/b.png"], "the FIFO and the link are left out as before")
        #expect(unstated.values.allSatisfy { $0.stat == nil })
        // What the scanner does for one when it knows files (a rescan): the same stat as the walk's.
        for (name, file) in unstated {
            let now = try #require(file.statNow(followSymlinks: false))
            #expect(Scanner.fileStat(now) == Scanner.fileStat(try #require(stated[name]?.stat)), "\(name)")
        }

        // A followed link is a link in the listing: the walk stats it to learn what it points to.
        let followed = try Self.walk(library.root, fileStats: false, followSymlinks: true)
        #expect(Set(followed.keys) == ["a.png", "link.png", "sub/deeper/b.png"])
        #expect(followed["link.png"]?.stat != nil && followed["a.png"]?.stat == nil)
    }

    /// A file listed without a stat takes its open file's; one gone since the listing is said to
    /// have vanished (the scan then drops it, as a walk that stats it would not have met it).
    @Test func aFileListedWithoutAStat_takesItsOpenFilesStat_orIsSaidToHaveVanished() throws {
        let library = try Library()
        let png = try Library.fixture("rgb.png")
        try library.write("kept.png", png)
        try library.write("gone.png", png)
        try library.write("notes.txt", Data("not an image".utf8))
        let files = try Self.walk(library.root, fileStats: false)
        try FileManager.default.removeItem(atPath: library.path("gone.png"))
        let names = files.keys.sorted()
        let probed = Scanner.probeAll(names.map { files[$0]! }, followSymlinks: false)
        let byName = Dictionary(uniqueKeysWithValues: zip(names, probed))
        #expect(byName["kept.png"]?.stat == (try Self.fileStat(library.path("kept.png"))))
        #expect(byName["notes.txt"]?.stat == (try Self.fileStat(library.path("notes.txt"))), "unsupported, stated all the same")
        #expect(byName["kept.png"]?.vanished == false && byName["notes.txt"]?.vanished == false)
        #expect(byName["gone.png"]?.vanished == true && byName["gone.png"]?.stat == nil)
        if case .image = byName["kept.png"]?.outcome {} else { Issue.record("kept.png: \(String(describing: byName["kept.png"]?.outcome))") }
    }

    /// A first scan of a tree larger than the walk may run ahead: the files walked after the
    /// scanner found no known files come without a stat, and the stats stored for them are
    /// their files' own (an unchanged rescan, which stats every file, finds every one unchanged).
    @Test(arguments: Backend.allCases) func aFirstScansStoredStatsAreTheFilesOwn(_ backend: Backend) throws {
        let library = try Library(backend)
        let png = try Library.fixture("rgb.png")
        for folder in 0..<400 { try library.write(String(format: "f%03d/%03d.png", folder, folder), png) }
        let first = try library.scan()
        #expect((first.files, first.added) == (400, 400))
        let catalog = try library.catalog()
        let known = try catalog.store.knownFiles(under: Data((library.root.path + "/").utf8))
        #expect(known.count == 400)
        for file in known {
            let path = String(decoding: file.path, as: UTF8.self)
            #expect(file.stat == (try Self.fileStat(path)), "\(path)")
        }
        let again = try library.scan()
        #expect((again.unchanged, again.updated, again.added) == (400, 0, 0))
    }
}
