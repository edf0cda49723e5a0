import CatalogKit
import CatalogModel
import Foundation
import GRDB
import Testing

/// What permissions do to the command line: a catalog this user may not write, root's files
/// beside a user's catalog, files and folders a scan may not read. Run as `nobody` when the
/// tests run as root, whom no permission stops.
@Suite struct CommandLinePermissionTests: RunsTheTool {
    /// A catalog this user may read but not write (in a folder anyone may write to) is refused
    /// before anything is made beside it: SQLite's -wal and -shm files made by that user were
    /// theirs, and the catalog's owner could no longer open it. Run as `nobody` when the tests
    /// run as root, whom no permission stops.
    @Test func aCatalogThisUserMayReadButNotWrite_isRefusedAndLeftAsItWas() throws {
        let (library, folder) = try readOnlyCatalog()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let refused = try runAsNobody(["stats", "--db", library.catalogPath])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("this user cannot write it or its folder"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before, "nothing made beside it")
        try #require(chmod(library.catalogPath, 0o644) == 0)
        let owner = try run(["stats", "--db", library.catalogPath])
        #expect(owner.status == 0, "\(owner.stderr)")
        // A file there that is no catalog is still said to be none.
        let notes = try library.write("notes.txt", Data("not a catalog\n".utf8))
        try #require(chmod(library.root.path, 0o777) == 0 && chmod(notes, 0o444) == 0)
        let said = try runAsNobody(["stats", "--db", notes]).stderr
        #expect(said.contains("is not a catalog"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.path).sorted() == ["a.jpg", "notes.txt"])
    }

    /// A catalog its owner took the write permission from is said as such, with the chmod that
    /// gives it back (it said "run catalog as the catalog's owner" to the owner).
    @Test func aCatalogItsOwnerMayNotWrite_isSaidWithTheChmod() throws {
        // Root may write anything: the owner is nobody, and so is the user.
        let (library, _) = try readOnlyCatalog(ownedByNobody: getuid() == 0)
        let refused = try runAsNobody(["stats", "--db", library.catalogPath])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("this user owns it but may not write it (mode 444)") && refused.stderr.contains("chmod u+w "), "\(refused.stderr)")
    }

    /// A catalog this user may read but not write, whose -wal and -shm a killed writer left (SQLite
    /// opens it then, to read): `page` prints its page, the layout not stored, and `scan` says
    /// why it cannot write, where both said SQLite's "attempt to write a readonly database".
    @Test(.enabled(if: getuid() == 0, "root runs the commands as nobody, whom the permissions stop"))
    func aCatalogLeftWithItsWALThatThisUserMayNotWrite_stillPages_andAScanSaysWhy() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        #expect(try run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        // A writer gone with its last commit in the WAL: it never checkpoints, and never closes.
        // (A value changed: SQLite writes no page for a row rewritten as it was.)
        let writer = "import os, sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('PRAGMA wal_autocheckpoint = 0'); "
            + "c.execute(\"UPDATE roots SET last_scanned_at = '2026-01-01T00:00:00Z'\"); os._exit(0)"
        let left = try BuiltTool.run(["-c", writer, library.catalogPath], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let wal = (try? FileManager.default.attributesOfItem(atPath: library.catalogPath + "-wal")[.size] as? Int) ?? 0
        try #require(left.status == 0 && wal > 0, "\(left.stderr)")
        let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        try #require(chmod(folder, 0o755) == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix(URL(fileURLWithPath: library.catalogPath).lastPathComponent) {
            try #require(chmod(folder + "/" + file, 0o644) == 0)
        }
        let page = try runAsNobody(["page", "--db", library.catalogPath, "--width", "375"])
        #expect(page.status == 0 && page.stdout.contains("a.jpg"), "\(page.stderr)")
        let scan = try runAsNobody(["scan", "--db", library.catalogPath, library.root.path])
        #expect(scan.status == 1 && scan.stderr.contains("this user cannot write it or its folder"), "\(scan.stderr)")
        #expect(!scan.stderr.contains("readonly database"), "\(scan.stderr)")
    }

    /// A catalog anyone may write, whose file of stored layouts is its maker's alone (0644, as
    /// made): another user's `page`, `sections` and `snap` lay out and answer, the layout not
    /// stored, and `layout` says which file it may not write; all said SQLite's "attempt to
    /// write a readonly database" and exited 1.
    @Test(.enabled(if: getuid() == 0, "root runs the commands as nobody, whom the permissions stop"))
    func aFileOfStoredLayoutsThisUserMayNotWrite_stillPages() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        #expect(try run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        try #require(chmod(folder, 0o777) == 0 && chmod(library.catalogPath, 0o666) == 0 && chmod(library.catalogPath + ".layouts", 0o644) == 0)
        let page = try runAsNobody(["page", "--db", library.catalogPath, "--width", "380"])
        #expect(page.status == 0 && page.stdout.contains("a.jpg"), "\(page.stderr)")
        let sections = try runAsNobody(["sections", "--db", library.catalogPath, "--width", "380", "--sections", "month"])
        #expect(sections.status == 0, "\(sections.stderr)")
        let snap = try runAsNobody(["snap", "--db", library.catalogPath, "--width", "380", "--proposed", "0"])
        #expect(snap.status == 0, "\(snap.stderr)")
        let layout = try runAsNobody(["layout", "--db", library.catalogPath, "--width", "380"])
        #expect(layout.status == 1 && layout.stderr.contains("this user may not write its file of stored layouts, \(library.catalogPath).layouts"), "\(layout.stderr)")
        #expect(!layout.stderr.contains("readonly database"), "\(layout.stderr)")
        #expect(try run(["layouts", "--db", library.catalogPath]).stdout.contains("width=380") == false)
    }

    /// A scanned catalog of one photo, made read-only (0444) in a folder anyone may write to;
    /// `ownedByNobody`: its files given to `nobody`.
    func readOnlyCatalog(ownedByNobody: Bool = false) throws -> (Library, folder: String) {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        #expect(try run(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        if ownedByNobody {
            let owner = try #require(getpwnam("nobody")?.pointee.pw_uid)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix(URL(fileURLWithPath: library.catalogPath).lastPathComponent) {
                try #require(chown(folder + "/" + file, owner, gid_t(0)) == 0)
            }
        }
        try #require(chmod(folder, 0o777) == 0 && chmod(library.catalogPath, 0o444) == 0)
        return (library, folder)
    }

    /// The same refusal for a catalog named by one character from its folder (`--db g`): the
    /// process died of SIGILL in Foundation's `deletingLastPathComponent`, which cannot take a
    /// one-character path.
    @Test func aOneCharacterCatalogName_isRefusedInWords() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let folder = library.root.appendingPathComponent("catalogs").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try run(["scan", "--db", folder + "/g", library.root.path]).status == 0)
        try #require(chmod(folder, 0o777) == 0 && chmod(folder + "/g", 0o444) == 0)
        let shell = ["-c", #"cd "$1" && exec "$0" stats --db g"#, BuiltTool.catalog.path, folder]
        let result = getuid() == 0
            ? try BuiltTool.run(["-u", "nobody", "--", "/bin/sh"] + shell, executable: URL(fileURLWithPath: "/sbin/runuser"))
            : try BuiltTool.run(shell, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("this user cannot write it or its folder"), "\(result.stderr)")
    }

    @Test(arguments: [("g", ""), ("/g", "/"), ("a/b", "a"), ("/a/b/", "/a"), ("a//b", "a"), ("./g", "."), ("/", "/"), ("", ""), ("é/ü", "é")])
    func theFolderOfAPath(_ path: String, _ folder: String) {
        #expect(FilePath.folder(of: path) == folder)
    }

    /// Root opening another user's catalog (`sudo catalog list`) gives the files it makes beside
    /// it (the layouts' file, lock files) to the catalog's owner, as SQLite gives its -wal and
    /// -shm: root's files left the owner unable to store a layout ("attempt to write a readonly
    /// database").
    @Test(.enabled(if: getuid() == 0, "only root opens another user's catalog as its own"))
    func rootGivesTheFilesItMakesBesideAUsersCatalogToItsOwner() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        let folder = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        let nobody = try #require(getpwnam("nobody")).pointee
        for path in [folder, library.root.path, library.path("a.jpg")] { try #require(chown(path, nobody.pw_uid, nobody.pw_gid) == 0) }
        #expect(try runAsNobody(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
        for suffix in [".layouts", ".layouts.lock"] { try FileManager.default.removeItem(atPath: library.catalogPath + suffix) }
        #expect(try run(["list", "--db", library.catalogPath]).status == 0) // as root: makes them again
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            var info = stat()
            #expect(lstat(folder + "/" + name, &info) == 0 && info.st_uid == nobody.pw_uid, "\(name) is nobody's")
        }
        #expect(try runAsNobody(["layout", "--db", library.catalogPath, "--width", "375"]).status == 0)
        #expect(try runAsNobody(["scan", "--db", library.catalogPath, library.root.path]).status == 0)
    }

    /// `catalog scan --json` of the library's root into its catalog, run as `nobody` when the
    /// tests run as root (whom no permission stops); the library's folders opened to that user.
    func scanningAsNobody(_ library: Library) throws -> () throws -> (status: Int32, stdout: String, stderr: String) {
        let base = URL(fileURLWithPath: library.catalogPath).deletingLastPathComponent().path
        for folder in [base, library.root.path] { try #require(chmod(folder, 0o777) == 0) }
        return { try runAsNobody(["scan", "--db", library.catalogPath, library.root.path, "--json"]) }
    }

    /// A file that could not be opened (its permissions) is read again by the next scan even
    /// though its size and time did not change, as a chmod changes neither; an image that
    /// cannot be read this time keeps its item (its id too) rather than lose it, with a
    /// warning, counted as failed and listed by `catalog errors`. Run as `nobody` when the tests run as root, whom no permission stops.
    @Test func anUnreadableFileIsReadAgainOnceItCanBe_andAnImageKeepsItsItemMeanwhile() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let scan = try scanningAsNobody(library)
        let kept = try library.write("kept.jpg", Library.fixture("baseline.jpg"))
        let later = try library.write("later.png", Library.fixture("rgb.png"))
        try #require(chmod(later, 0o600) == 0)
        let first = try scan()
        #expect(first.status == 0 && first.stdout.contains(#""added":1,"#) && first.stdout.contains(#""failed":1,"#), "\(first)")
        let id = try #require(try library.items()[kept]?.id)
        #expect(try library.catalog().fileErrors().map(\.reason) == ["cannot open: Permission denied"])
        // The image goes unreadable, and its time moves (a scan reads it again).
        try #require(chmod(kept, 0o600) == 0)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: kept)
        let second = try scan()
        #expect(second.stdout.contains(#""removed":0,"#) && second.stdout.contains(#""failed":2,"failing":2,"#), "\(second)")
        #expect(second.stderr.contains("warning: \(kept): cannot open: Permission denied; its item is kept as it was"), "\(second.stderr)")
        #expect(try library.items()[kept]?.id == id)
        // `catalog errors` lists it too, and says its item is kept.
        let errors = try run(["errors", "--db", library.catalogPath])
        #expect(errors.stdout.contains("\(kept)\tcannot open: Permission denied; its item is kept until a scan reads the file again\n"), "\(errors)")
        // Both readable again, neither's size nor time changed since the last scan.
        for path in [kept, later] { try #require(chmod(path, 0o644) == 0) }
        let third = try scan()
        #expect(third.stdout.contains(#""added":1,"updated":1,"#) && third.stdout.contains(#""failed":0,"#), "\(third)")
        #expect(try library.items()[kept]?.id == id)
        #expect(try library.items()[later] != nil)
        #expect(try library.catalog().fileErrors().isEmpty)
        let fourth = try scan()
        #expect(fourth.stdout.contains(#""unchanged":2,"#), "\(fourth)")
    }

    /// A root that can be listed but not entered (read permission, no x) cannot be scanned, as
    /// one that cannot be opened: an error, exit 1, and no catalog made when it is the only root.
    /// It used to be walked as a folder whose files all vanished, with a warning and exit 0.
    @Test func aRootThatCanBeListedButNotEntered_cannotBeScanned() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("shut/a.jpg", Library.fixture("baseline.jpg"))
        _ = try scanningAsNobody(library)
        let shut = library.path("shut")
        try #require(chmod(shut, 0o644) == 0)
        defer { chmod(shut, 0o755) }
        let result = try runAsNobody(["scan", "--db", library.catalogPath, shut])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("\(shut): Permission denied (it can be listed, not entered); nothing scanned or removed under it"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: library.catalogPath), "no catalog made")
    }

    /// A hard link of a known file, met at its own path too, is read after the walk; when it
    /// cannot be opened then, its row keeps the walk's stat and is counted as failed. It was
    /// stored on device 0, inode 0: uncounted, then kept forever once deleted, as a file of
    /// "a disk that is not mounted now", and listed by `catalog errors`.
    @Test func aHardLinkThatCannotBeReadIsCountedAndGoesWhenDeleted() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let scan = try scanningAsNobody(library)
        let original = try library.write("a.jpg", Library.fixture("baseline.jpg"))
        #expect(try scan().status == 0)
        let hardLink = library.path("b.jpg")
        try #require(link(original, hardLink) == 0 && chmod(original, 0o000) == 0)
        defer { chmod(original, 0o644) }
        let linked = try scan()
        #expect(linked.stdout.contains(#""failed":1,"#) && linked.stdout.contains(#""unchanged":1,"#), "\(linked)")
        #expect(try library.catalog().fileErrors().map(\.reason) == ["cannot open: Permission denied"])
        try FileManager.default.removeItem(atPath: hardLink)
        let gone = try scan()
        #expect(!gone.stderr.contains("not mounted"), "\(gone.stderr)")
        #expect(try library.catalog().fileErrors().isEmpty)
        #expect(try run(["stats", "--db", library.catalogPath]).stdout.contains("files       1 scanned, 0 unsupported, 0 errors"), "only a.jpg is left")
    }

    /// A file that failed and did not change is not read again, so a rescan's "failed" is 0:
    /// "failing" (and the text's hint) still counts it, as `catalog errors` lists it, for a cron
    /// job that reads the summary.
    @Test func aRescanSaysWhatStillFails_notOnlyWhatFailedNow() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("broken.png", Library.fixture("rgb.png").prefix(20))
        let first = try run(["scan", "--db", library.catalogPath, library.root.path, "--json"])
        #expect(first.stdout.contains(#""failed":1,"failing":1,"#), "\(first.stdout)")
        let again = try run(["scan", "--db", library.catalogPath, library.root.path, "--json"])
        #expect(again.stdout.contains(#""unchanged":2,"#) && again.stdout.contains(#""failed":0,"failing":1,"#), "\(again.stdout)")
        let text = try run(["scan", "--db", library.catalogPath, library.root.path])
        #expect(text.stdout.hasSuffix("\nrun `catalog errors` to see why 1 file fails: it failed before and did not change since\n"), "\(text.stdout)")
        try library.write("broken.png", Library.fixture("rgb.png"))
        let fixed = try run(["scan", "--db", library.catalogPath, library.root.path, "--json"])
        #expect(fixed.stdout.contains(#""failed":0,"failing":0,"#), "\(fixed.stdout)")
    }

    /// A folder that cannot be read (mode 000), and one that can be listed but not entered (r
    /// without x: each entry's stat fails with EACCES, which was taken for "vanished"), remove
    /// none of their files from the catalog and are named in a warning; once they can be read
    /// again, every file is as it was, ids too. Run as `nobody` when the tests run as root.
    @Test func foldersThatCannotBeReadOrEntered_removeNothing_andAreNamed() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let scan = try scanningAsNobody(library)
        try library.write("kept.jpg", Library.fixture("baseline.jpg"))
        try library.write("listed/d.png", Library.fixture("rgb.png"))
        try library.write("listed/deeper/e.jpg", Library.fixture("progressive.jpg"))
        try library.write("closed/f.png", Library.fixture("interlaced.png"))
        let first = try scan()
        #expect(first.status == 0 && first.stdout.contains(#""added":4,"#), "\(first)")
        let ids = try library.items().mapValues(\.id)
        try #require(chmod(library.path("listed"), 0o644) == 0)
        try #require(chmod(library.path("closed"), 0o000) == 0)
        defer { for folder in ["listed", "closed"] { chmod(library.path(folder), 0o755) } }
        let second = try scan()
        #expect(second.status == 0 && second.stdout.contains(#""removed":0,"#), "\(second)")
        #expect(second.stderr.contains("warning: \(library.path("listed")): its entries cannot be looked at (Permission denied); skipped, nothing under it removed"),
                "\(second.stderr)")
        #expect(second.stderr.contains("warning: \(library.path("closed")): Permission denied; skipped, nothing under it removed"), "\(second.stderr)")
        #expect(try library.items().mapValues(\.id) == ids)
        for folder in ["listed", "closed"] { try #require(chmod(library.path(folder), 0o755) == 0) }
        let third = try scan()
        #expect(third.stdout.contains(#""added":0,"#) && third.stdout.contains(#""removed":0,"#) && third.stdout.contains(#""unchanged":4,"#), "\(third)")
        #expect(third.stderr.isEmpty, "\(third.stderr)")
        #expect(try library.items().mapValues(\.id) == ids)
        // The root itself listed but not entered: a root that cannot be scanned, nothing removed.
        try #require(chmod(library.root.path, 0o644) == 0)
        defer { chmod(library.root.path, 0o777) }
        let fourth = try scan()
        #expect(fourth.status == 1 && fourth.stdout.contains(#""removed":0,"#), "\(fourth)")
        #expect(fourth.stderr.contains("error: \(library.root.path): Permission denied (it can be listed, not entered); nothing scanned or removed under it"), "\(fourth.stderr)")
        #expect(try library.items().mapValues(\.id) == ids)
    }

    /// A --db that names a folder, or runs through a file, is said to be that (SQLite said
    /// "disk I/O error" for the folder), and nothing is created.
    @Test func aFolderOrAPathThroughAFileIsNamedAsSuch() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let library = try Library()
        let file = try library.write("notes.txt", Data("notes".utf8))
        for (db, reason) in [(library.root.path, "it is a folder; --db names the catalog's file, such as \(library.root.path)/catalog.sqlite"),
                             (file + "/catalog.sqlite", "a part of the path is a file, not a folder")] {
            for command in [["list"], ["scan", library.root.path]] {
                let result = try run([command[0], "--db", db] + command.dropFirst())
                #expect(result.status == 1)
                #expect(result.stderr == "Error: cannot open the catalog at \(db): \(reason)\n", "\(result.stderr)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.root.path) == ["notes.txt"])
    }
}
