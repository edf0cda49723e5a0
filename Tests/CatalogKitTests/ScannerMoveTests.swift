import CatalogKit
import CatalogModel
import CatalogStore
import Foundation
import GRDB
import Testing

/// Files changed, replaced, renamed and moved between scans or while a scan walks: each keeps
/// its item (its id) when it is the same file or the same bytes, and only then.
@Suite struct ScannerMoveTests {
    @Test(arguments: Backend.allCases) func touchedAndReplacedFilesAreReprobed_keepingTheirIds(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        let before = try library.items()
        try library.write("a.jpg", Library.fixture("grayscale.jpg")) // replaced: 20x36 now
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: library.path("b.png")) // touched
        let summary = try library.scan()
        #expect((summary.updated, summary.added, summary.unchanged) == (2, 0, 4))
        let after = try library.items()
        #expect(after[library.path("a.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("a.jpg")].map { [$0.width, $0.height] } == [20, 36])
        #expect(after[library.path("b.png")]?.id == before[library.path("b.png")]?.id)
    }

    @Test(arguments: Backend.allCases) func deletedFilesAndRemovedFoldersAreRemoved(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        try FileManager.default.removeItem(atPath: library.path("a.jpg"))
        try FileManager.default.removeItem(atPath: library.path("2024"))
        let summary = try library.scan()
        #expect(summary.removed == 3) // a.jpg, 2024/c.jpg, 2024/d.png
        #expect(try library.items().keys.sorted() == [library.path("b.png")])
        #expect(try library.catalog().fileErrors().isEmpty, "the broken file went with its folder")
    }

    @Test(arguments: Backend.allCases) func renamedAndMovedFilesKeepTheirIds(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("renamed.jpg"))
        try FileManager.default.createDirectory(atPath: library.path("2025"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library.path("2024/c.jpg"), toPath: library.path("2025/c.jpg"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (2, 0, 0))
        let after = try library.items()
        #expect(after[library.path("renamed.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("2025/c.jpg")]?.id == before[library.path("2024/c.jpg")]?.id)
        #expect(after[library.path("a.jpg")] == nil)
    }

    /// A scan writes with SQLite's foreign keys off (their checks cost 6 % of a first scan) and
    /// keeps the files' references itself. After scans that add, turn an image into a file that
    /// is not one, rename, rewrite a renamed file, copy then delete, and hard-link, no reference
    /// dangles, a file has an item exactly when it is an image (the item whose key is its path),
    /// and the catalog's own connection has its foreign keys on again.
    @Test func scansKeepTheFilesReferences_withForeignKeysOff() throws {
        let library = try Library.standardTree()
        let catalog = try library.catalog() // one connection for every scan: the pragma must come back on it
        func check(_ when: String) throws {
            let store = try #require(catalog.store as? SQLiteStore)
            #expect(try store.write { try Int.fetchOne($0, sql: "PRAGMA foreign_keys") } == 1, "\(when): foreign keys left off")
            try DatabaseQueue(path: library.catalogPath).read { db in
                let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                #expect(dangling.isEmpty, "\(when): \(dangling)")
                let wrong = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM files f LEFT JOIN items i ON i.id = f.item_id
                    WHERE (f.status = 0) != (i.id IS NOT NULL AND i.key = f.path)
                    """)
                #expect(wrong == 0, "\(when)")
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM files WHERE item_id IS NOT NULL") == (try Int.fetchOne(db, sql: "SELECT count(*) FROM items")), "\(when)")
            }
        }
        func scan() throws -> ScanSummary { try catalog.scan([library.root.path]) }
        _ = try scan()
        try check("after the first scan")
        try library.write("a.jpg", Data("text now".utf8)) // no longer an image: its item goes
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("moved.png"))
        try FileManager.default.removeItem(atPath: library.path("2024/c.jpg"))
        let summary = try scan()
        #expect((summary.removed, summary.moved, summary.unsupported) == (2, 1, 1), "\(summary)")
        try check("after the changes")
        try library.write("a.jpg", Library.fixture("baseline.jpg")) // an image again: a new item
        #expect(try scan().added == 1)
        try check("after the image came back")
        // Renamed and rewritten in place (same inode, other bytes: a new file, as when a deleted
        // file's inode is given to a new one); copied to a new inode then deleted (adopted);
        // hard-linked (a new file).
        try FileManager.default.moveItem(atPath: library.path("moved.png"), toPath: library.path("rewritten.png"))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.path("rewritten.png")))
        try handle.write(contentsOf: try Library.fixture("interlaced.png"))
        try handle.close()
        try FileManager.default.copyItem(atPath: library.path("2024/d.png"), toPath: library.path("copied.png"))
        try FileManager.default.removeItem(atPath: library.path("2024/d.png"))
        try #require(link(library.path("a.jpg"), library.path("linked.jpg")) == 0)
        let moves = try scan()
        #expect((moves.moved, moves.added, moves.removed) == (1, 2, 1), "\(moves)")
        #expect(try library.items()[library.path("rewritten.png")].map { [$0.width, $0.height] } == [33, 17])
        try check("after the moves and the link")
    }

    /// A file deleted and a new one made whose inode the file system reused (ext4 does at once):
    /// the new photo is a new item, not the deleted one's id with other facts. A file renamed and
    /// touched (same bytes, a new time) keeps its id. Renames stand in for the reuse: the same
    /// inode at a new path, its old path gone.
    @Test(arguments: Backend.allCases) func anInodeReusedForOtherBytesIsANewItem_butARenamedTouchedFileKeepsItsId(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("new.jpg"))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: library.path("new.jpg")))
        try handle.write(contentsOf: try Library.fixture("grayscale.jpg")) // other bytes, same inode
        try handle.truncate(atOffset: UInt64(try Library.fixture("grayscale.jpg").count))
        try handle.close()
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("renamed.png"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: library.path("renamed.png"))
        let summary = try library.scan()
        #expect((summary.added, summary.removed, summary.moved) == (1, 1, 1), "\(summary)")
        let after = try library.items()
        let new = try #require(after[library.path("new.jpg")])
        #expect(new.id != before[library.path("a.jpg")]?.id)
        #expect(new.width == 20 && new.height == 36)
        #expect(after[library.path("renamed.png")]?.id == before[library.path("b.png")]?.id)
    }

    /// A folder renamed is one change: its files keep their ids and the generation moves once
    /// (it moved once a file: a thousand files overran the change log, and readers saw a folder
    /// half-renamed).
    @Test(arguments: Backend.allCases) func aFolderRenamedKeepsItsIds_andMovesTheGenerationOnce(_ backend: Backend) throws {
        let library = try Library(backend)
        for index in 0..<30 {
            var bytes = try Library.fixture("baseline.jpg")
            bytes.append(contentsOf: withUnsafeBytes(of: index) { Array($0) })
            try library.write("2024/img\(index).jpg", bytes)
        }
        _ = try library.scan()
        let before = try library.items()
        let catalog = try library.catalog()
        let generation = try catalog.generation()
        try FileManager.default.moveItem(atPath: library.path("2024"), toPath: library.path("2024-trip"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (30, 0, 0), "\(summary)")
        #expect(try catalog.generation() == generation + 1)
        let after = try library.items()
        #expect(Set(after.values.map(\.id)) == Set(before.values.map(\.id)))
        #expect(after.keys.allSatisfy { $0.contains("/2024-trip/") })
    }

    /// A copy to a new inode, then the original deleted (what a move across disks does).
    @Test(arguments: Backend.allCases) func aFileCopiedThenDeletedIsAMoveByFingerprint(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.copyItem(atPath: library.path("b.png"), toPath: library.path("copied.png"))
        try FileManager.default.removeItem(atPath: library.path("b.png"))
        let generation = try library.catalog().generation()
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.updated, summary.removed) == (1, 0, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("copied.png")]?.id == before[library.path("b.png")]?.id)
        #expect(try library.catalog().generation() == generation + 1, "the move and the file's new facts: one change")
        let again = try library.scan()
        #expect((again.unchanged, again.updated, again.moved) == (6, 0, 0), "the moved file as it is now: \(again)")
    }

    /// A rename (by inode) and a copy of it (by content) in one scan: the rename keeps the item,
    /// whichever the walk meets first; the copy is new.
    @Test(arguments: Backend.allCases) func aRenamedFileKeepsItsItem_notACopyOfIt(_ backend: Backend) throws {
        let library = try Library.standardTree(backend)
        _ = try library.scan()
        let id = try #require(try library.items()[library.path("b.png")]?.id)
        try FileManager.default.moveItem(atPath: library.path("b.png"), toPath: library.path("z.png"))
        try FileManager.default.copyItem(atPath: library.path("z.png"), toPath: library.path("a-copy.png"))
        try FileManager.default.copyItem(atPath: library.path("z.png"), toPath: library.path("zz-copy.png"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (1, 2, 0), "\(summary)")
        let items = try library.items()
        #expect(items[library.path("z.png")]?.id == id)
        #expect(items[library.path("a-copy.png")]?.id != id && items[library.path("zz-copy.png")]?.id != id)
    }

    /// A file moved from one root of a scan to another keeps its item, whichever root is walked
    /// first: the roots' vanished files are matched with the new ones of every root, and removed
    /// only after every root is walked (the first root's were removed before the second was
    /// walked, and the file came back as a new item).
    @Test(arguments: Backend.allCases) func aFileMovedBetweenTwoRootsOfAScanKeepsItsItem_eitherWay(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a/x.png", Library.fixture("rgb.png"))
        try library.write("a/kept.jpg", Library.fixture("baseline.jpg"))
        try library.write("b/y.jpg", Library.fixture("grayscale.jpg"))
        let roots = [library.path("a"), library.path("b")]
        _ = try library.scan(roots)
        let before = try library.items()
        let generation = try library.catalog().generation()

        try FileManager.default.moveItem(atPath: library.path("a/x.png"), toPath: library.path("b/x.png")) // to the later root
        var summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("b/x.png")]?.id == before[library.path("a/x.png")]?.id)
        #expect(try library.catalog().generation() == generation + 1)

        try FileManager.default.moveItem(atPath: library.path("b/y.jpg"), toPath: library.path("a/y.jpg")) // to the earlier root
        summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        #expect(try library.items()[library.path("a/y.jpg")]?.id == before[library.path("b/y.jpg")]?.id)

        // Copied, then deleted (a move across disks): found by its content in the other root.
        try FileManager.default.copyItem(atPath: library.path("b/x.png"), toPath: library.path("a/x-copied.png"))
        try FileManager.default.removeItem(atPath: library.path("b/x.png"))
        summary = try library.scan(roots)
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after[library.path("a/x-copied.png")]?.id == before[library.path("a/x.png")]?.id)
        #expect(Set(after.values.map(\.id)) == Set(before.values.map(\.id)))
        let again = try library.scan(roots)
        #expect((again.unchanged, again.moved, again.added, again.removed) == (3, 0, 0, 0), "\(again)")
    }

    /// A folder of identical copies copied elsewhere, then deleted (`mv` to another disk): each
    /// file keeps its own item, found by its name (and folder) among the known files with its
    /// content, not the first of them (the ids were shuffled among the copies). Thirteen copies:
    /// more than `likeliest` weighs one by one.
    @Test(arguments: Backend.allCases) func identicalCopiesMovedByContent_eachKeepItsOwnItem(_ backend: Backend) throws {
        let library = try Library(backend)
        for n in 1...12 { try library.write("x/p\(n).png", Library.fixture("rgb.png")) }
        try library.write("y/p1.png", Library.fixture("rgb.png")) // the same name and content, another folder
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.createDirectory(atPath: library.path("z"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: library.path("x"), toPath: library.path("z/x"))
        try FileManager.default.removeItem(atPath: library.path("x"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (12, 0, 0), "\(summary)")
        let after = try library.items()
        for n in 1...12 {
            #expect(after[library.path("z/x/p\(n).png")]?.id == before[library.path("x/p\(n).png")]?.id, "p\(n).png")
        }
        #expect(after[library.path("y/p1.png")]?.id == before[library.path("y/p1.png")]?.id)
    }

    /// Hard links share an inode: one of them renamed keeps its own item, though another path
    /// with that inode is still there.
    @Test(arguments: Backend.allCases) func aRenamedHardLinkKeepsItsItem(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("x.png", Library.fixture("rgb.png"))
        try FileManager.default.linkItem(atPath: library.path("x.png"), toPath: library.path("b.png"))
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("x.png"), toPath: library.path("c.png"))
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (1, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after[library.path("c.png")]?.id == before[library.path("x.png")]?.id)
        #expect(after[library.path("b.png")]?.id == before[library.path("b.png")]?.id)
    }

    /// Scans the library, making `renames` (relative paths, as bytes or as text) at the scan's
    /// first report: the one after the first batch is written, so the library needs a new file.
    static func scanRenamingAtTheFirstReport(_ library: Library, _ renames: [(String, String)], bytes: [([UInt8], [UInt8])] = []) throws -> ScanSummary {
        let root = Array(library.root.path.utf8) + [47]
        let all = renames.map { (Array($0.0.utf8), Array($0.1.utf8)) } + bytes
        var options = ScanOptions()
        options.batchSize = 1
        options.reportEveryBatch = true
        nonisolated(unsafe) var renamed = false
        let summary = try library.catalog().scan([library.root.path], options: options) { _ in
            guard !renamed else { return }
            renamed = true
            for (from, to) in all {
                let (old, new) = ((root + from + [0]).map { CChar(bitPattern: $0) }, (root + to + [0]).map { CChar(bitPattern: $0) })
                _ = rename(old, new)
            }
        }
        #expect(renamed)
        return summary
    }

    /// Files renamed while the walk runs keep their ids: one moved out of a folder the walk has not
    /// listed yet into one it has (met at neither name), and one moved the other way (met at both,
    /// its one link not taken for two). They are renamed at the scan's first report, when the walk,
    /// which runs at most 256 steps ahead, is still far above a folder 400 deep.
    @Test(arguments: Backend.allCases)
    func filesRenamedWhileTheWalkRunsKeepTheirIds(_ backend: Backend) throws {
        let library = try Library(backend)
        let deep = Array(repeating: "d", count: 400).joined(separator: "/")
        try library.write("\(deep)/out.jpg", Library.fixture("baseline.jpg"))
        try library.write("\(deep)/last.jpg", Library.fixture("progressive.jpg"))
        try library.write("in.png", Library.fixture("rgb.png"))
        _ = try library.scan()
        let before = try library.items()
        try library.write("new.jpg", Library.fixture("grayscale.jpg"))
        // One named with a last byte of 0xFF, which no store range can end past.
        let last = Array("last".utf8) + [0xFF]
        let summary = try Self.scanRenamingAtTheFirstReport(library, [("\(deep)/out.jpg", "out.jpg"), ("in.png", "\(deep)/in.png")],
                                                            bytes: [(Array("\(deep)/last.jpg".utf8), last)])
        #expect((summary.moved, summary.added, summary.removed) == (3, 1, 0), "\(summary)")
        let after = try library.items()
        #expect(after.count == 4)
        #expect(after[PathText.display(Data(Array(library.root.path.utf8) + [47] + last))]?.id == before[library.path("\(deep)/last.jpg")]?.id)
        #expect(after[library.path("out.jpg")]?.id == before[library.path("\(deep)/out.jpg")]?.id)
        #expect(after[library.path("\(deep)/in.png")]?.id == before[library.path("in.png")]?.id)
    }


    /// A known file renamed before the scan, then again while the walk runs, from the folder the
    /// walk has listed into one it has not: the walk meets it at two new names, neither its
    /// known one. It keeps its id at the name it is at; the first name met took it, at a path
    /// gone since, and the file came in as new (a scan later removed the other).
    @Test(arguments: Backend.allCases)
    func aFileRenamedTwiceWhileTheWalkRunsKeepsItsIdWhereItIs(_ backend: Backend) throws {
        let library = try Library(backend)
        let deep = Array(repeating: "d", count: 400).joined(separator: "/")
        try library.write("x.jpg", Library.fixture("baseline.jpg"))
        try library.write("\(deep)/last.jpg", Library.fixture("progressive.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try library.write("new.png", Library.fixture("rgb.png"))
        try FileManager.default.moveItem(atPath: library.path("x.jpg"), toPath: library.path("first.jpg"))
        let summary = try Self.scanRenamingAtTheFirstReport(library, [("first.jpg", "\(deep)/second.jpg")])
        #expect((summary.moved, summary.added, summary.removed) == (1, 1, 0), "\(summary)")
        let after = try library.items()
        #expect(after[library.path("\(deep)/second.jpg")]?.id == before[library.path("x.jpg")]?.id)
        #expect(after[library.path("first.jpg")] == nil && after.count == 3, "\(after.keys.sorted())")
        let again = try library.scan()
        #expect((again.moved, again.added, again.removed) == (0, 0, 0), "\(again)")
    }

    /// The names in a folder, in the order `readdir` gives them (the walk's).
    static func listingOrder(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// While the walk runs, a folder it has listed but not opened yet is renamed into the root,
    /// which it has listed, and a file of that folder is renamed over a new image the walk has
    /// met (and the scan stored). The folder's files move with their ids, none is stored twice,
    /// and the image's path keeps its id. The renames are made at the scan's first report, when
    /// the walk is deep in a chain of 400 folders in the folder listed before the other one.
    @Test(arguments: Backend.allCases)
    func aFolderRenamedBeforeTheWalkOpensItKeepsItsIds_andIsStoredOnce(_ backend: Backend) throws {
        let library = try Library(backend)
        for name in ["x", "y"] { try FileManager.default.createDirectory(atPath: library.path("p/\(name)"), withIntermediateDirectories: true) }
        let order = Self.listingOrder(library.path("p"))
        try #require(order.count == 2)
        let (chain, folder) = (order[0], order[1])
        let deep = "p/\(chain)/" + Array(repeating: "d", count: 400).joined(separator: "/")
        try library.write("\(deep)/deep.jpg", Library.fixture("baseline.jpg"))
        try library.write("p/\(folder)/f.jpg", Library.fixture("grayscale.jpg"))
        try library.write("p/\(folder)/g.jpg", Library.fixture("progressive.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try library.write("new.png", Library.fixture("rgb.png"))
        let summary = try Self.scanRenamingAtTheFirstReport(library, [("p/\(folder)/f.jpg", "new.png"), ("p/\(folder)", "moved")])
        #expect((summary.moved, summary.added, summary.removed) == (1, 1, 0), "\(summary)")
        var after = try library.items()
        #expect(after.count == 4, "\(after.keys.sorted())")
        #expect(after[library.path("moved/g.jpg")]?.id == before[library.path("p/\(folder)/g.jpg")]?.id)
        let newID = after[library.path("new.png")]?.id
        // The next scan reads new.png again (another file now), and f.jpg's item goes with its folder.
        let next = try library.scan()
        #expect((next.moved, next.updated, next.removed) == (0, 1, 1), "\(next)")
        after = try library.items()
        #expect(Set(after.keys) == [library.path(deep + "/deep.jpg"), library.path("moved/g.jpg"), library.path("new.png")])
        #expect(after[library.path("new.png")]?.id == newID)
    }

    /// A file renamed away and another written at its path (`cp --backup`, a camera's
    /// `latest.jpg`): the path keeps its id, the renamed file is a new item, whichever name the walk
    /// meets first; the next scan changes nothing.
    @Test(arguments: Backend.allCases)
    func aFileRenamedAwayWithAnotherWrittenAtItsPath_thePathKeepsItsId(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("a.jpg", Library.fixture("baseline.jpg"))
        try library.write("m.jpg", Library.fixture("grayscale.jpg"))
        _ = try library.scan()
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("a.jpg"), toPath: library.path("a.jpg.~1~"))
        try library.write("a.jpg", Library.fixture("progressive.jpg"))
        try FileManager.default.moveItem(atPath: library.path("m.jpg"), toPath: library.path("0.jpg"))
        try library.write("m.jpg", Library.fixture("rgb.png"))
        let summary = try library.scan()
        #expect((summary.added, summary.updated, summary.moved, summary.removed) == (2, 2, 0, 0), "\(summary)")
        let after = try library.items()
        #expect(after.count == 4)
        #expect(after[library.path("a.jpg")]?.id == before[library.path("a.jpg")]?.id)
        #expect(after[library.path("m.jpg")]?.id == before[library.path("m.jpg")]?.id)
        let next = try library.scan()
        #expect((next.added, next.updated, next.moved, next.removed, next.unchanged) == (0, 0, 0, 0, 4), "\(next)")
    }

    /// Links followed to one file: each link is an item, and scans after change nothing.
    @Test(arguments: Backend.allCases)
    func twoLinksFollowedToOneFileAreTwoItemsThatStay(_ backend: Backend) throws {
        let library = try Library(backend)
        try library.write("x.jpg", Library.fixture("baseline.jpg"))
        try FileManager.default.createSymbolicLink(atPath: library.path("l1.jpg"), withDestinationPath: "x.jpg")
        let options = ScanOptions(followSymlinks: true)
        #expect(try library.scan(options: options).added == 2)
        try FileManager.default.createSymbolicLink(atPath: library.path("l2.jpg"), withDestinationPath: "x.jpg")
        let summary = try library.scan(options: options)
        #expect((summary.added, summary.moved) == (1, 0), "\(summary)")
        let items = try library.items()
        for _ in 1...2 {
            let again = try library.scan(options: options)
            #expect((again.added, again.moved, again.removed, again.unchanged) == (0, 0, 0, 3), "\(again)")
            #expect(try library.items().mapValues(\.id) == items.mapValues(\.id))
        }
    }

    /// A folder moved within its root with a link left where it was (as a folder is moved to
    /// another disk) is a move: its files keep their ids at their new paths. They were kept at
    /// the old paths, reached through the link, and added again at the new ones.
    @Test(arguments: Backend.allCases) func aFolderMovedWithALinkLeftWhereItWasKeepsItsIds(_ backend: Backend) throws {
        let library = try Self.scannedFolder(backend, "sub", beside: "keep/other.png")
        let before = try library.items()
        try FileManager.default.moveItem(atPath: library.path("sub"), toPath: library.path("keep/sub"))
        try FileManager.default.createSymbolicLink(atPath: library.path("sub"), withDestinationPath: "keep/sub")
        let summary = try library.scan()
        #expect((summary.moved, summary.added, summary.removed) == (3, 0, 0) && summary.problems.isEmpty, "\(summary)")
        let after = try library.items()
        #expect(after.count == 4, "\(after.keys.sorted())")
        for n in 0..<3 { #expect(after[library.path("keep/sub/\(n).png")]?.id == before[library.path("sub/\(n).png")]?.id) }
    }

    /// A folder replaced by a link to it, rescanned as a watch rescans it (the folder, and its
    /// parent's own files), keeps its files with the warning a scan of the whole root gives; the
    /// link deleted too, a rescan of the parent's own files removes them, though no event names
    /// them. The rescan walked the link, silently, and the files stayed for good once it went.
    @Test(arguments: Backend.allCases) func aFolderReplacedByALink_thenTheLinkDeleted_asAWatchRescansThem(_ backend: Backend) throws {
        let library = try Self.scannedFolder(backend, "p/sub", beside: "p/top.png")
        let ids = try library.items().mapValues(\.id)
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("linked-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.moveItem(atPath: library.path("p/sub"), toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: library.path("p/sub"), withDestinationPath: outside)
        let store = try library.catalog().store
        let (root, parent, sub) = (library.root.path, Array(library.path("p").utf8), Array(library.path("p/sub").utf8))
        let linked = try Scanner(store: store).run(root: root, folders: [(parent, false), (sub, true)])
        #expect(linked.removed == 0 && linked.problems.count == 1
                && linked.problems[0].hasPrefix("\(root): 3 known files reached through symbolic links"), "\(linked)")
        #expect(try library.items().mapValues(\.id) == ids)
        try FileManager.default.removeItem(atPath: library.path("p/sub"))
        let unlinked = try Scanner(store: store).run(root: root, folders: [(parent, false)])
        #expect(unlinked.removed == 3, "\(unlinked)")
        #expect(try library.items().keys.sorted() == [library.path("p/top.png")])
    }

    /// A library of three images in `folder` (0.png to 2.png) and one more at `other`, scanned.
    static func scannedFolder(_ backend: Backend, _ folder: String, beside other: String) throws -> Library {
        let library = try Library(backend)
        let bytes = try Library.fixture("rgb.png")
        for n in 0..<3 { try library.write("\(folder)/\(n).png", bytes) }
        try library.write(other, bytes)
        _ = try library.scan()
        return library
    }
}
