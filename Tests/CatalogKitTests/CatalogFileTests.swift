import CatalogKit
import Foundation
import GRDB
import Testing

/// What the commands do with a catalog file that is not a catalog, or not one they can use: an
/// empty file, a missing one, one cut short, a device, a full disk, and an import refused.
@Suite struct CatalogFileTests: RunsTheTool {

    /// An empty file is no catalog for a command that only reads (SQLite would take it for an
    /// empty database and make a catalog of it, and its layout file beside it); a command that
    /// writes makes one there as in a new file.
    @Test func aCommandThatReadsRefusesAnEmptyFile_andLeavesItEmpty() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let empty = try library.write("notes.txt", Data())
        for command in [["stats"], ["list"], ["page", "--width", "375"]] {
            let result = try run([command[0], "--db", empty] + command.dropFirst())
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("Error: cannot open the catalog at \(empty): there is no catalog there (an empty file);"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.path) == ["notes.txt"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        #expect(try run(["scan", "--db", empty, library.root.path]).status == 0)
        #expect(try run(["stats", "--db", empty]).stdout.contains("items"))

        // Nor is an SQLite database without tables (`sqlite3 FILE VACUUM`, or a catalog's file
        // copied without its -wal while its tables were still only there): they were made in it.
        let blank = library.root.path + "/blank.db"
        try DatabaseQueue(path: blank).writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: blank))
        for command in [["stats"], ["list"], ["page", "--width", "375"]] {
            let result = try run([command[0], "--db", blank] + command.dropFirst())
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("Error: cannot open the catalog at \(blank): there is no catalog there (an SQLite database without tables);"),
                    "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: blank)) == bytes, "left as it was")
        #expect(!FileManager.default.fileExists(atPath: blank + ".layouts"))
        #expect(try run(["scan", "--db", blank, library.root.path]).status == 0)
        #expect(try run(["stats", "--db", blank]).stdout.contains("items"))
    }

    /// A failure is one `Error:` line, a line break in a path it names written as `\n` (a
    /// folder's name with one split the line, as other paths are not).
    @Test func aFailureNamingAPathWithALineBreakIsOneLine() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let folder = library.root.path + "/odd\ndir"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try run(["list", "--db", folder + "/nope.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: cannot open the catalog at \(library.root.path)/odd\\ndir/nope.sqlite: ")
                && result.stderr.filter { $0 == "\n" }.count == 1 && result.stderr.hasSuffix("\n"), "\(result.stderr)")
    }

    /// An import whose input cannot be read makes no catalog: the input is opened first.
    @Test func anImportOfAMissingFileMakesNoCatalog() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let result = try run(["import", "--db", library.catalogPath, library.root.path + "/pins.csv"])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: cannot read \(library.root.path)/pins.csv: No such file or directory; nothing was imported\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath))
        // A folder opens, and fails at its first read.
        let folder = try run(["import", "--db", library.catalogPath, library.root.path])
        #expect(folder.status == 1 && folder.stderr.contains("Is a directory"), "\(folder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath))
    }

    /// Output that cannot be written (a full disk: /dev/full) fails the command with a message,
    /// as it fails `cat`, rather than exit 0 with the listing cut short.
    @Test(arguments: [["list"], ["list", "--json"], ["stats"], ["page", "--width", "375"]])
    func outputThatCannotBeWrittenFailsTheCommand(_ command: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(2_000))
        try expectFullDiskFails([command[0], "--db", library.catalogPath] + command.dropFirst())
    }

    /// An import or a scan whose summary cannot be written fails (exit 1) after its work was
    /// committed: the message says the work is kept, or a script retried an import that was done.
    @Test func aSummaryThatCannotBeWritten_saysTheWorkIsKept() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let csv = try library.write("pins.csv", Data("key,width,height\npin-1,10,20\n".utf8))
        try expectFullDiskFails(["import", "--db", library.catalogPath, csv],
                                message: "Error: cannot write the output: No space left on device; the import itself was written (its transaction had committed)\n")
        try expectFullDiskFails(["scan", "--db", library.catalogPath, library.root.path],
                                message: "Error: cannot write the output: No space left on device; the scan itself was written\n")
        #expect(try library.catalog().items(order: .path).count == 2)
    }

    /// A catalog cut short (a copy that did not finish) is a damaged catalog, not "not a
    /// catalog; pass --db to use another file", which sent its owner elsewhere.
    @Test func aCatalogCutShort_isSaidToBeDamaged() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems((0..<3000).map { ImportRow(line: $0 + 2, key: "pin-\($0)", width: 10, height: 20) })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library.catalogPath))
        // A third of it, one page, and its first 16 bytes alone (SQLite's header: "not a database").
        for cut in [bytes.count / 3, 4096, 16] {
            let copy = library.root.appendingPathComponent("copy-\(cut).sqlite").path
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: copy))
            let result = try run(["stats", "--db", copy])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("Error: cannot open the catalog at \(copy): it is damaged (")
                    && result.stderr.contains("it was not modified: restore a backup, or recover what SQLite can with sqlite3 \(copy) .recover"),
                    "\(cut): \(result.stderr)")
            // Nothing left beside it (SQLite's -shm and an empty -wal were).
            let beside = try FileManager.default.contentsOfDirectory(atPath: library.root.path).filter { $0.hasPrefix("copy-\(cut).sqlite") }
            #expect(beside == ["copy-\(cut).sqlite"], "\(beside)")
        }
    }

    /// A page torn after the schema (which the check at opening reads) was met by a read or a
    /// write later, and passed through as SQLite's own "database error: database disk image is
    /// malformed", with no word of what to do: it is said to be damaged, with the way out.
    @Test func aCatalogTornPastItsSchema_isSaidToBeDamaged_byReadsAndWrites() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems((0..<3000).map { ImportRow(line: $0 + 2, key: "pin-\($0)", width: 10, height: 20) })
        let (root, pageSize) = try DatabaseQueue(path: library.catalogPath).inDatabase { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'items'")!,
                    try Int.fetchOne(db, sql: "PRAGMA page_size")!)
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: library.catalogPath))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xAB, count: pageSize))
        try file.close()
        let csv = library.root.appendingPathComponent("more.csv")
        try "key,width,height\nnew-pin,10,20\n".write(to: csv, atomically: true, encoding: .utf8)
        let path = library.catalogPath
        for (command, says) in [(["list", "--db", path], "the catalog at \(path), or its file of stored layouts (\(path).layouts), is damaged ("),
                                (["import", "--db", path, csv.path], "the catalog at \(path) is damaged (")] {
            let result = try run(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.hasPrefix("Error: " + says) && result.stderr.contains("estore a backup, or recover what SQLite can with sqlite3 \(path) .recover"),
                    "\(command): \(result.stderr)")
        }
    }

    /// A device or a FIFO given as --db is refused before anything is made beside it: `stats
    /// --db /dev/null` left /dev/null-journal, /dev/null.layouts and its lock in /dev.
    @Test func aDeviceOrAFIFOAsTheCatalog_isRefused_andNothingIsMadeBesideIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let fifo = library.root.appendingPathComponent("pipe").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: library.root.path).sorted()
        for (path, kind) in [(fifo, "a FIFO (a named pipe)"), ("/dev/null", "a device")] {
            let result = try run(["stats", "--db", path])
            #expect(result.status == 1)
            #expect(result.stderr == "Error: cannot open the catalog at \(path): it is \(kind), not a catalog's file; it was not modified, and nothing was made beside it\n",
                    "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.path).sorted() == before)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null.layouts"))
    }

    /// A catalog on a full disk could not even be opened (SQLite makes its -shm file to read),
    /// and said only "disk I/O error": it is said to be a full disk, with what may be deleted.
    @Test(.enabled(if: getuid() == 0, "mounts a small file system"))
    func aCatalogOnAFullDisk_isSaidToBeOnAFullDisk() throws {
        try onePinOnASmallDisk(fullDisk)
    }

    /// A catalog of one imported pin, and a small file system mounted for `body` (its folder).
    private func onePinOnASmallDisk(_ body: (String, Library) throws -> Void) throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        _ = try library.catalog().importItems([ImportRow(line: 2, key: "pin", width: 10, height: 20)])
        try FullDiskTests.withSmallDisk(library) { disk in try body(disk, library) }
    }

    private func fullDisk(_ disk: String, library: Library) throws {
        try FileManager.default.copyItem(atPath: library.catalogPath, toPath: disk + "/c.sqlite")
        try FileManager.default.copyItem(atPath: library.catalogPath + ".layouts", toPath: disk + "/c.sqlite.layouts")
        try FullDiskTests.fill(disk, filler: disk + "/fill")
        let result = try run(["stats", "--db", disk + "/c.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: the disk is full: no room on the catalog's disk (") && result.stderr.contains("at least 1 MiB must be free there"),
                "\(result.stderr)")
        // Its small file of stored layouts is not offered as the way out: deleting it left the
        // next command to make a new one, which needed more room than it freed.
        #expect(!result.stderr.contains("may be deleted"), "\(result.stderr)")
        try FileManager.default.removeItem(atPath: disk + "/c.sqlite.layouts")
        let again = try run(["stats", "--db", disk + "/c.sqlite"])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: the disk is full: no room on the catalog's disk (") && again.stderr.contains("at least 1 MiB must be free there"),
                "\(again.stderr)")
    }

    /// A catalog on a read-only file system (a backup disk, a snapshot) was refused with "run
    /// catalog as the catalog's owner, or copy it", said to its owner too: it is said to be on a
    /// read-only file system, for a read, a write, and a new catalog there.
    @Test(.enabled(if: getuid() == 0, "mounts a small file system"))
    func aCatalogOnAReadOnlyFileSystem_isSaidToBeOnOne() throws {
        try onePinOnASmallDisk(readOnlyDisk)
    }

    private func readOnlyDisk(_ disk: String, library: Library) throws {
        try FileManager.default.copyItem(atPath: library.catalogPath, toPath: disk + "/c.sqlite")
        let readOnly = try BuiltTool.run(["-o", "remount,ro", disk], executable: URL(fileURLWithPath: "/bin/mount"))
        try #require(readOnly.status == 0, "mount: \(readOnly.stderr)")
        let csv = library.root.appendingPathComponent("more.csv")
        try "key,width,height\nnew-pin,10,20\n".write(to: csv, atomically: true, encoding: .utf8)
        for command in [["stats", "--db", disk + "/c.sqlite"], ["import", "--db", disk + "/c.sqlite", csv.path], ["import", "--db", disk + "/new.sqlite", csv.path]] {
            let result = try run(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("is on a read-only file system") && !result.stderr.contains("owner"), "\(command): \(result.stderr)")
            // A catalog to be made there is not one to copy.
            let way = command[2].hasSuffix("new.sqlite") ? "give a --db on a disk that can be written" : "copy the catalog to a disk that can be written"
            #expect(result.stderr.contains(way), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk) == ["c.sqlite"])
    }

    /// A refused import into a path with no catalog leaves none (it left an empty catalog, which
    /// read commands then took for one); into a catalog, the catalog stays as it was.
    @Test func aRefusedImportMakesNoCatalog_andLeavesOneAsItWas() throws {
        let library = try Library()
        let bad = try library.write("bad.csv", Data("key,width,height\np1,10,20\np2,10,-1\n".utf8))
        let refused = try run(["import", "--db", library.catalogPath, bad])
        #expect(refused.status == 1 && refused.stderr.contains("line 3"), "\(refused.stderr)")
        let left = ["", "-wal", "-shm", "-journal", ".lock", ".layouts", ".layouts-wal", ".layouts-shm", ".layouts.lock"].filter { FileManager.default.fileExists(atPath: library.catalogPath + $0) }
        #expect(left.isEmpty, "left behind: \(left)")
        #expect(try run(["list", "--db", library.catalogPath]).stderr.contains("no catalog there"))
        // A catalog that exists, even one made empty, is kept.
        let good = try library.write("good.csv", Data("key,width,height\np1,10,20\n".utf8))
        #expect(try run(["import", "--db", library.catalogPath, good]).status == 0)
        #expect(try run(["import", "--db", library.catalogPath, bad]).status == 1)
        #expect(try library.items().count == 1)
    }
}
