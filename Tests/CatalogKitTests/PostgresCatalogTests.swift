import CatalogKit
import CatalogModel
import CatalogStorePostgres
import Foundation
import Testing

/// What is particular to a catalog in PostgreSQL: opening by URL, refusing what is not a
/// catalog, and the command line printing what it prints on SQLite (against the test server).
@Suite struct PostgresCatalogTests {
    @Test func anEmptyDatabaseBecomesACatalog_andOpensAgainWithoutMigrating() throws {
        let url = try TestPostgres.newDatabase()
        let catalog = try Catalog.open(at: url)
        #expect(try catalog.generation() == 0)
        #expect(catalog.location == url)
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../Migrations/postgres").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: migrations.path).filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) }
        #expect(files.count >= 3)
        #expect(try TestPostgres.psql(database, "SELECT identifier FROM catalog_migrations ORDER BY identifier").split(separator: "\n").map(String.init)
            == files.sorted(), "every migration applied, each once")
        _ = try catalog.importItems([ImportRow(line: 2, key: "p1", width: 10, height: 20)])
        let again = try Catalog.open(at: url)
        #expect(try again.items().map(\.width) == [10])
    }

    /// An import into an empty catalog drops the date index and the unique key constraint and
    /// makes them again after its insert: the items' indexes and constraints come out as the
    /// migrations made them, and a key twice is still refused by the database itself.
    @Test func anImportIntoAnEmptyCatalog_leavesTheIndexesAndConstraintsAsTheMigrationsMadeThem() throws {
        let library = try Library(.postgres)
        let catalog = try library.catalog()
        let database = OrderDataTests.database(library)
        let shape = """
            SELECT (SELECT string_agg(indexdef, E'\\n' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'items') || E'\\n' ||
                   (SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid), E'\\n' ORDER BY conname) FROM pg_constraint
                    WHERE conrelid = 'items'::regclass)
            """
        let migrated = try TestPostgres.psql(database, shape)
        #expect(migrated.contains("items_key_key UNIQUE (key)") && migrated.contains("items_by_date"), "\(migrated)")
        _ = try catalog.importItems(PagerTests.importRows(500))
        #expect(try TestPostgres.psql(database, shape) == migrated)
        #expect {
            try TestPostgres.psql(database, """
                INSERT INTO items (key, source, pixel_width, pixel_height, width, height, sort_date, changed_generation)
                SELECT key, 1, 1, 1, 1, 1, sort_date, changed_generation FROM items LIMIT 1
                """)
        } throws: { error in
            "\(error)".contains("items_key_key")
        }
    }

    /// What a command that only reads opens (`openExisting`) refuses an empty database, as it
    /// refuses an SQLite file that is missing or empty, and makes no table there; a database
    /// that is a catalog opens.
    @Test func aCommandThatReadsRefusesAnEmptyDatabase_andMakesNoTableThere() throws {
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        #expect(throws: StoreError.cannotOpen(path: url, reason: "there is no catalog there (a database without tables); `catalog scan FOLDER` or `catalog import FILE` with this --db makes one")) {
            try Catalog.openExisting(at: url)
        }
        // `serve --read-db` without `--scan`: the primary is read, as by any command that reads.
        #expect(throws: StoreError.noCatalog(at: url, "a database without tables")) { try Catalog.open(at: url, readingFrom: url, create: false) }
        #expect(try TestPostgres.psql(database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        _ = try Catalog.open(at: url)
        #expect(try Catalog.openExisting(at: url).generation() == 0)
    }

    @Test func aDatabaseWithOtherTables_isRefusedAndLeftUntouched() throws {
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        try TestPostgres.psql(database, "CREATE TABLE invoices (id int); INSERT INTO invoices VALUES (7)")
        #expect(throws: StoreError.notACatalog(path: url, reason: "a PostgreSQL database with other tables (invoices)")) {
            try Catalog.open(at: url)
        }
        #expect(StoreError.notACatalog(path: url, reason: "r").description.hasSuffix("it was not modified. Pass --db to use another database."))
        #expect(StoreError.notACatalog(path: "postgres-backup.sqlite", reason: "r").description.hasSuffix("Pass --db to use another file."))
        #expect(try TestPostgres.psql(database, "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "invoices")
    }

    @Test func aCatalogWrittenByANewerVersion_isRefusedWithTheSameMessageAsOnSQLite() throws {
        let url = try TestPostgres.newDatabase()
        _ = try Catalog.open(at: url)
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        try TestPostgres.psql(database, "INSERT INTO catalog_migrations (identifier) VALUES ('9999_from_the_future')")
        #expect(throws: StoreError.newerVersion(path: url, unknownMigrations: ["9999_from_the_future"])) { try Catalog.open(at: url) }
    }

    @Test(arguments: [
        ("postgres://me:secret@db.example/photos", "the URL holds a password; put it in PGPASSWORD or ~/.pgpass instead"),
        ("postgres://db.example:99999/photos", "port 99999 is out of range"),
        ("postgresql://db.example/photos?sslmode=require", "unknown URL parameter \"sslmode\""),
        ("postgres://db.example/photos?keepalives=yes", "keepalives \"yes\" must be 1 (on) or 0 (off)"),
        ("postgres://db.example/photos?keepalives_idle=0", "keepalives_idle \"0\" must be a whole number of seconds, 1 or more"),
        ("postgres://db.example/photos?tcp_user_timeout=-1", "tcp_user_timeout \"-1\" must be a whole number of milliseconds, 0 or more"),
    ])
    func badURLsAreRefusedBeforeAnyConnection(_ url: String, _ reason: String) {
        #expect {
            try Catalog.open(at: url)
        } throws: { error in
            guard case StoreError.cannotOpen(let path, let message) = error else { return false }
            // The URL as given, but never its password.
            return path == url.replacingOccurrences(of: ":secret@", with: ":***@") && message.contains(reason)
                && !"\(error)".contains("secret")
        }
    }

    /// A server that asks for a password none was given for: said in words (it was PostgresNIO's
    /// "authMechanismRequiresPassword"), naming a password file others may read, which is not
    /// read (as libpq does), until it is the owner's alone.
    @Test func aPasswordNotGiven_orInAFileOthersMayRead_isSaidInWords() throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let url = try TestPostgres.urlOfRoleWithPassword("s3cret")
        let home = try Library() // its root folder as the home folder
        let environment = ["HOME": home.root.path, "PATH": "/usr/bin:/bin"]
        let none = try BuiltTool.run(["stats", "--db", url], environment: environment)
        #expect(none.status == 1)
        #expect(none.stderr.hasSuffix(": the server asks for a password, and none was given: set PGPASSWORD or put it in ~/.pgpass (mode 600)\n"),
                "\(none.stderr)")
        let file = home.path(".pgpass")
        try "*:*:*:*:s3cret\n".write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o644)
        let unread = try BuiltTool.run(["stats", "--db", url], environment: environment)
        #expect(unread.status == 1)
        #expect(unread.stderr.hasSuffix(": the server asks for a password, and \(file) was not read because others may read it "
                                        + "(as libpq, which ignores it too): chmod 600 \(file)\n"), "\(unread.stderr)")
        chmod(file, 0o600)
        let read = try BuiltTool.run(["stats", "--db", url], environment: environment)
        #expect(!read.stderr.contains("password"), "\(read.stderr)")
        #expect(read.stderr.contains("there is no catalog there"), "logged in: the database is empty")
        let given = try BuiltTool.run(["stats", "--db", url], environment: ["HOME": "/nonexistent", "PGPASSWORD": "s3cret"])
        #expect(given.stderr.contains("there is no catalog there"), "\(given.stderr)")
    }

    @Test func aServerThatIsNotThere_isACannotOpenNamingTheURL() {
        let url = "postgres://postgres@/nowhere?host=/tmp/no-such-folder&port=5999"
        #expect {
            try Catalog.open(at: url)
        } throws: { error in
            guard case StoreError.cannotOpen(let path, _) = error else { return false }
            return path == url
        }
    }

    /// Scans of different roots write at once; a second scan of a root, or an import, waits for
    /// none and says so. A held lease stands for the other scanner: another process's
    /// connection, as the advisory locks see it.
    @Test func scansOfDifferentRootsRunAtOnce_butNotTwoOfOneRoot_norAnImportMeanwhile() throws {
        let library = try Library(.postgres)
        try library.write("north/a.jpg", Library.fixture("baseline.jpg"))
        try library.write("south/b.png", Library.fixture("rgb.png"))
        let catalog = try library.catalog()
        let north = library.path("north"), south = library.path("south")
        do {
            let scanning = try catalog.store.lockForScanning(roots: [Data(north.utf8)])
            defer { withExtendedLifetime(scanning) {} }
            #expect(try catalog.scan([south]).added == 1)
            #expect(throws: StoreError.busy(path: catalog.location)) { try catalog.scan([north]) }
            #expect(throws: StoreError.busy(path: catalog.location)) {
                try catalog.importItems([ImportRow(line: 2, key: "k", width: 1, height: 1)])
            }
        }
        #expect(try catalog.scan([north]).added == 1)
        do {
            let importing = try catalog.store.lockForWriting()
            defer { withExtendedLifetime(importing) {} }
            #expect(throws: StoreError.busy(path: catalog.location)) { try catalog.scan([south]) }
        }
        #expect(try catalog.items().count == 2)
    }

    /// A root inside another one being scanned, or around it, is not scanned meanwhile: both
    /// scans would walk the same files (and count them twice). Siblings, and a folder whose
    /// name only starts like the root's, still go at once.
    @Test func aScanOfARootInsideOrAroundOneBeingScannedWaitsItsTurn() throws {
        let library = try Library(.postgres)
        try library.write("north/2024/a.jpg", Library.fixture("baseline.jpg"))
        try library.write("north-east/b.png", Library.fixture("rgb.png"))
        try library.write("south/c.png", Library.fixture("rgb.png"))
        let catalog = try library.catalog()
        let north = library.path("north")
        for (held, refused) in [(north, library.path("north/2024")), (library.path("north/2024"), north),
                                (north, library.root.path)] {
            let scanning = try catalog.store.lockForScanning(roots: [Data(held.utf8)])
            #expect(throws: StoreError.busy(path: catalog.location), "\(refused) while \(held) is scanned") { try catalog.scan([refused]) }
            withExtendedLifetime(scanning) {}
        }
        do {
            let scanning = try catalog.store.lockForScanning(roots: [Data(library.path("north/2024").utf8)])
            defer { withExtendedLifetime(scanning) {} }
            #expect(try catalog.scan([library.path("south"), library.path("north-east")]).added == 2)
        }
        #expect(try catalog.scan([north]).added == 1)
        #expect(PostgresStore.folders(above: Data("/a/b/c".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["/a/b", "/a", "/"])
        #expect(PostgresStore.folders(above: Data("/".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["/"])
    }

    /// PostgreSQL indexes at most 2,704 bytes an entry: a longer path is a file the scan skips
    /// and names (the other files of its folder are stored, where the scan used to fail whole),
    /// and a longer key is a refused line, as any other bad line.
    @Test func aPathOrKeyLongerThanPostgreSQLIndexes_isSkippedOrRefused_andTheRestGoesIn() throws {
        let library = try Library(.postgres)
        var random = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        func name(_ length: Int) -> String { String((0..<length).map { _ in letters.randomElement(using: &random)! }) } // does not compress
        let deep = (0..<12).map { _ in name(240) }.joined(separator: "/")
        let long = try library.write(deep + "/long.png", Library.fixture("rgb.png"))
        try library.write("short.png", Library.fixture("rgb.png"))
        let catalog = try library.catalog()
        let summary = try catalog.scan([library.root.path])
        #expect(summary.added == 1, "\(summary)")
        #expect(summary.problems == ["\(long): its path is \(long.utf8.count) bytes, more than the 2600 a catalog in PostgreSQL can index; skipped"])
        #expect(try catalog.scan([library.root.path]).problems.count == 1, "said again")
        let key = name(2_601)
        #expect(throws: StoreError.invalidInput(line: 3, reason: "key is 2601 bytes, more than the 2600 a catalog in PostgreSQL can index")) {
            try catalog.importItems([ImportRow(line: 2, key: name(2_600), width: 1, height: 1), ImportRow(line: 3, key: key, width: 1, height: 1)])
        }
        let csv = try library.write("pins.csv", Data("key,width,height\n\(name(2_600)),1,1\n\(key),1,1\n".utf8))
        #expect(throws: StoreError.invalidInput(line: 3, reason: "key is 2601 bytes, more than the 2600 a catalog in PostgreSQL can index")) {
            try catalog.importItems(from: csv)
        }
        #expect(try catalog.importItems([ImportRow(line: 2, key: name(2_600), width: 1, height: 1)]).added == 1, "2,600 bytes go in")
        #expect(try catalog.items().count == 2)
        // An address whose host is longer than any browser loads has no origin to index (the
        // import failed with the database's own words, SQLSTATE 54000).
        let far = "https://\(name(3_000).lowercased()).example.com/2.jpg"
        #expect(try catalog.importItems([ImportRow(line: 2, key: "pin-far", width: 736, height: 1104, url: far)]).added == 1)
        #expect(try catalog.webOrigins(limit: 10).allSatisfy { $0.utf8.count < 300 })
    }

    /// The same scan and import, through the binary, into an SQLite file and a PostgreSQL
    /// database: every read command prints the same bytes.
    /// A known image a scan could not read keeps its item, its facts and its last stat on both
    /// backends, while its row says why (`catalog errors`) and is read again by the next scan;
    /// read again, it is an image with no error. (The scanner's side runs as `nobody` in
    /// CommandLineTests; here the stores' own writes.)
    @Test func anImageKeptThroughAFailedRead_isListedAsFailing_andKeepsItsItem() throws {
        let library = try Library()
        for db in [library.catalogPath, try TestPostgres.newDatabase()] {
            let store = try Catalog.open(at: db).store
            let root = try store.rootID(for: Data("/photos".utf8))
            let path = Data("/photos/a.jpg".utf8), stat = FileStat(device: 1, inode: 2, size: 3, mtimeNanoseconds: 4)
            let facts = ImageFacts(format: "jpeg", pixelWidth: 30, pixelHeight: 20, orientation: 1, width: 30, height: 20, bytes: 3,
                                   captureDate: nil, modifiedAt: "2024-01-01T00:00:00")
            #expect(try store.apply([FileChange(path: path, stat: stat, fingerprint: 7, outcome: .image(facts), itemID: nil)], rootID: root).added == 1)
            let known = try #require(try store.knownFiles(under: Data("/photos/".utf8)).first)
            let generation = try store.generation()
            let reason = "cannot open: Permission denied" + FileOutcome.keptItemNote
            let counts = try store.apply([FileChange(path: path, stat: FileStat(device: 1, inode: 2, size: 9, mtimeNanoseconds: 9), fingerprint: nil,
                                                     outcome: .failed(reason), itemID: known.itemID, keepsItem: true)], rootID: root)
            let changed: Int = counts.added + counts.updated + counts.removed + counts.refused
            #expect(changed == 0, "\(db)")
            #expect(try store.generation() == generation, "\(db): no item changed")
            #expect(try store.items(order: .path, limit: nil, offset: 0).map(\.width) == [30], "\(db)")
            #expect(try store.fileErrors() == [FileError(path: path, reason: reason)], "\(db)")
            #expect(try store.failedFileCount() == 1, "\(db)")
            let kept = try #require(try store.knownFiles(under: Data("/photos/".utf8)).first)
            #expect(kept.itemID == known.itemID && kept.stat == stat && kept.fingerprint == 7 && kept.unreadable, "\(db): \(kept)")
            #expect(try store.apply([FileChange(path: path, stat: stat, fingerprint: 7, outcome: .image(facts), itemID: kept.itemID)], rootID: root).updated == 1)
            #expect(try store.fileErrors().isEmpty, "\(db)")
            #expect(try store.knownFiles(under: Data("/photos/".utf8)).map(\.unreadable) == [false], "\(db)")
        }
    }

    @Test func theCommandLinePrintsTheSameOnBothBackends() throws {
        let library = try Library()
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        try library.write("a/two.png", Library.fixture("rgb.png"))
        try library.write("b/three.jpg", Library.fixture("progressive.jpg"))
        try library.write("b/four.png", Library.fixture("interlaced.png"))
        try library.write("b/broken.png", Library.fixture("rgb.png").prefix(20))
        let pins = try library.write("pins.csv", Data(#"""
            key,width,height,date,url,title,orientation
            pin-1,100,200,2024-01-02,https://Img.Example.com:8080/a.jpg,"A title, with ""quotes""",1
            pin-2,300,200,2023-02-03,http://b.example/b.jpg,Back\slash,6
            pin-3,50,60,2023-05-05,,,1

            """#.utf8))
        let postgres = try TestPostgres.newDatabase()
        for db in [library.catalogPath, postgres] {
            #expect(try BuiltTool.run(["scan", "--db", db, library.root.path]).status == 0)
            #expect(try BuiltTool.run(["import", "--db", db, pins]).status == 0)
        }
        for command in [["list"], ["list", "--sort", "path", "--json"], ["errors"],
                        ["page", "--width", "375", "--cols", "2", "--offset", "40", "--json"],
                        ["page", "--width", "414", "--cols", "3", "--item", "3", "--json"],
                        ["page", "--width", "800", "--style", "justified", "--json"],
                        ["page", "--width", "375", "--cols", "2", "--rect", "0,100,375,300", "--json"],
                        ["page", "--width", "375", "--cols", "2", "--sections", "month", "--json"]] {
            let sqlite = try BuiltTool.run(command + ["--db", library.catalogPath])
            let onPostgres = try BuiltTool.run(command + ["--db", postgres])
            #expect(sqlite.status == 0, "\(command): \(sqlite.stderr)")
            #expect(onPostgres.status == sqlite.status, "\(command): \(onPostgres.stderr)")
            #expect(String(decoding: onPostgres.stdout, as: UTF8.self) == String(decoding: sqlite.stdout, as: UTF8.self), "\(command)")
        }
        let refused = try BuiltTool.run(["import", "--db", postgres, try library.write("twice.csv", Data("key,width,height\nx,1,1\nx,2,2\n".utf8))])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("line 3: key \"x\" appears twice (first on line 2)"), "\(refused.stderr)")
        // Standard input is not read twice: the first line is not named, and nothing waits for it.
        let piped = try BuiltTool.run(["import", "--db", postgres, "-"], stdin: Data("key,width,height\nx,1,1\nx,2,2\n".utf8))
        #expect(piped.status == 1)
        #expect(piped.stderr.contains("line 3: key \"x\" appears twice\n"), "\(piped.stderr)")
    }
}

/// `catalog cluster`: a PostgreSQL catalog's items rewritten in a layout's order, through the
/// binary; on SQLite, nothing to do.
@Suite struct ClusterTests {
    /// The items' ids in the order they lie in the table, and in `order`.
    static func placesAndOrder(_ database: String, _ order: String) throws -> (table: String, order: String) {
        (try TestPostgres.psql(database, "SELECT string_agg(id::text, ',' ORDER BY ctid) FROM items"),
         try TestPostgres.psql(database, "SELECT string_agg(id::text, ',' ORDER BY \(order)) FROM items"))
    }

    /// Imported items lie in the table in the order of their lines; clustered by date they lie
    /// in date order, then by path in path order. The items, the generation, a stored page and
    /// the layouts stay as they were; with a scan or import under way it is refused as a
    /// second import is (exit 1).
    @Test func theItemsLieInTheTableInTheOrderAsked_andNothingElseChanges() throws {
        let library = try Library()
        let postgres = try TestPostgres.newDatabase()
        let database = String(URLComponents(string: postgres)?.path.dropFirst() ?? "")
        let rows = PagerTests.importRows(3_000).map { "\($0.key),\($0.width),\($0.height),\($0.date ?? "")" }
        let pins = try library.write("pins.csv", Data(("key,width,height,date\n" + rows.joined(separator: "\n") + "\n").utf8))
        #expect(try BuiltTool.run(["import", "--db", postgres, pins]).status == 0)
        let byDate = "sort_date DESC, key"
        let before = try Self.placesAndOrder(database, byDate)
        #expect(before.table != before.order, "imported in line order, not date order")
        let page = ["page", "--db", postgres, "--width", "375", "--cols", "2", "--offset", "20000", "--json"]
        _ = try BuiltTool.run(page) // stores the layout
        let stored = try BuiltTool.run(page)
        let (list, generation) = (try BuiltTool.run(["list", "--db", postgres]).stdout, try TestPostgres.psql(database, "SELECT generation FROM catalog"))

        let clustered = try BuiltTool.run(["cluster", "--db", postgres])
        #expect(clustered.status == 0, "\(clustered.stderr)")
        #expect(String(decoding: clustered.stdout, as: UTF8.self).hasPrefix("items clustered in date order in "))
        let after = try Self.placesAndOrder(database, byDate)
        #expect(after.table == after.order, "the table in date order")
        #expect(after.order == before.order)
        #expect(try BuiltTool.run(page).stdout == stored.stdout, "the stored page as before")
        #expect(try BuiltTool.run(["list", "--db", postgres]).stdout == list)
        #expect(try TestPostgres.psql(database, "SELECT generation FROM catalog") == generation)

        #expect(try BuiltTool.run(["cluster", "--db", postgres, "--sort", "path"]).status == 0)
        let byPath = try Self.placesAndOrder(database, "key")
        #expect(byPath.table == byPath.order, "the table in path order")

        let store = try Catalog.open(at: postgres).store
        let lease = try store.lockForWriting() // as an import under way holds it
        let busy = try BuiltTool.run(["cluster", "--db", postgres])
        #expect(busy.status == 1 && busy.stderr.contains("another scan or import is writing"), "\(busy.stderr)")
        withExtendedLifetime(lease) {}
    }

    /// On SQLite it says there is nothing to do, even while a scan writes, and changes nothing;
    /// a bad --sort is a usage error.
    @Test func onSQLiteThereIsNothingToDo_andABadSortIsAUsageError() throws {
        let library = try Library()
        _ = try library.catalog().importItems(PagerTests.importRows(10))
        let list = ["list", "--db", library.catalogPath, "--json"]
        let before = try BuiltTool.run(list).stdout
        let lease = try library.catalog().store.lockForWriting() // a scan under way does not stop it
        let done = try BuiltTool.run(["cluster", "--db", library.catalogPath])
        withExtendedLifetime(lease) {}
        #expect(done.status == 0, "\(done.stderr)")
        #expect(String(decoding: done.stdout, as: UTF8.self).contains("nothing to do"))
        #expect(try BuiltTool.run(list).stdout == before)
        let bad = try BuiltTool.run(["cluster", "--db", library.catalogPath, "--sort", "name"])
        #expect(bad.status == 2 && bad.stderr.contains("--sort"), "\(bad.stderr)")
    }
}

/// What a server keeps in memory on PostgreSQL and how it learns that it changed: the change
/// listener, and reads from a streaming replica.
@Suite struct PostgresServingTests {
    /// A write by another process (here another store on the same database) reaches this
    /// store's listener: its page cache trusts the generation it knows until then, and reads
    /// the new one after, without asking the database on every request.
    @Test func aWriteElsewhereIsHeardByTheListener_andThePageCacheFollowsIt() throws {
        let url = try TestPostgres.newDatabase()
        let server = try Catalog.open(at: url), writer = try Catalog.open(at: url)
        _ = try writer.importItems([ImportRow(line: 2, key: "p1", width: 10, height: 20)])
        let pages = PageCache(catalog: server)
        try waitFor { server.store.changeStamp() != nil }
        let stamp = try #require(server.store.changeStamp()).stamp
        #expect(try pages.generation() == 1)
        // As requests do: each reads while the stamp is too fresh to vouch, until it is trusted.
        try waitFor { try pages.generation() == 1 && pages.knownGeneration() == 1 }

        _ = try writer.importItems([ImportRow(line: 2, key: "p2", width: 10, height: 20)])
        try waitFor { server.store.changeStamp()?.stamp != stamp }
        #expect(pages.knownGeneration() == nil, "just heard: asks the database")
        #expect(try pages.generation() == 2)
        try waitFor { try pages.generation() == 2 && pages.knownGeneration() == 2 }
    }

    /// Another database behind the URL (dropped and made again with other items: a restore,
    /// a failover): a server that laid out the first one's order data lays out the new one's,
    /// whose chunks reuse the first one's ids, instead of failing every new configuration as
    /// corrupt or laying it out from the old items.
    @Test func anotherDatabaseBehindTheURL_isLaidOutFromItsOwnOrderData() throws {
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let server = try Catalog.open(at: url)
        _ = try server.importItems(PagerTests.importRows(300, seed: 1))
        let pages = PageCache(catalog: server)
        // The listener is connected (a stamp is given once the generation was read since).
        try waitFor { _ = try pages.generation(); return server.store.changeStamp() != nil }
        let epoch = try #require(server.store.changeStamp()).stamp[0]
        _ = try server.page(PageRequest(query: "width=375&cols=2")) // reads the order data into memory

        _ = try TestPostgres.psql("postgres", "DROP DATABASE \(database) WITH (FORCE)")
        _ = try TestPostgres.psql("postgres", "CREATE DATABASE \(database)")
        _ = try Catalog.open(at: url).importItems(PagerTests.importRows(200, seed: 2))
        try waitFor { _ = try? pages.generation(); return server.store.changeStamp().map { $0.stamp[0] != epoch } ?? false } // connected again
        let fresh = try Catalog.open(at: url) // a process that never saw the first database
        for query in ["width=414&cols=3", "width=320&cols=4&sections=month"] {
            let request = try PageRequest(query: query)
            var served: Page?
            #expect(throws: Never.self, "\(query)") { served = try server.page(request) }
            #expect(served?.items == (try fresh.page(request)).items, "\(query)")
        }
    }

    /// A scan or import writing holds the catalog's row until it commits, and the generation has
    /// moved on then: a new layout's page is made meanwhile and its layout left unstored, rather
    /// than waiting for the writer (a large import held every new layout for minutes).
    @Test func aNewLayoutWhileAWriterHoldsTheCatalogIsServedUnstored_notWaitedFor() throws {
        let url = try TestPostgres.newDatabase()
        let catalog = try Catalog.open(at: url)
        _ = try catalog.importItems((2..<50).map { ImportRow(line: $0, key: "k\($0)", width: 100, height: 100 + $0) })
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let (holder, input) = try TestPostgres.session(database)
        input.write(Data("BEGIN;\nUPDATE catalog SET generation = generation;\n".utf8))
        try waitFor {
            try TestPostgres.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'UPDATE catalog%'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        // On a thread of its own: before, it waited for the writer, here for ever.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<Page, any Error>?
        Thread { outcome = Result { try catalog.page(PageRequest(query: "width=375&cols=2&offset=0")) }; done.signal() }.start()
        let answered = done.wait(timeout: .now() + 60) == .success
        input.write(Data("ROLLBACK;\n".utf8))
        try input.close()
        holder.waitUntilExit()
        if !answered { done.wait() }
        #expect(answered, "the page waited for the writer")
        #expect(try #require(outcome).get().items.count > 0)
        #expect(try catalog.layouts().isEmpty, "not stored while the writer held the catalog")
        _ = try catalog.page(PageRequest(query: "width=375&cols=2&offset=0"))
        #expect(try catalog.layouts().count == 1, "stored once the writer is gone")
    }

    /// `--read-db` naming another catalog, not a replica of this one: refused, before its pages
    /// could have layouts of its items stored in this catalog.
    @Test func aReadDatabaseThatIsNotAReplicaIsRefused() throws {
        let url = try TestPostgres.newDatabase(), other = try TestPostgres.newDatabase()
        _ = try Catalog.open(at: url).importItems([ImportRow(line: 2, key: "a", width: 10, height: 10)])
        _ = try Catalog.open(at: other).importItems([ImportRow(line: 2, key: "b", width: 10, height: 10)])
        do {
            _ = try Catalog.open(at: url, readingFrom: other)
            Issue.record("another catalog taken for a replica")
        } catch {
            #expect("\(error)".contains("it is not a replica of"), "\(error)")
        }
        #expect(throws: Never.self) { try Catalog.open(at: url, readingFrom: url) } // itself: the same database
    }

    /// `--read-db`: reads go to a streaming replica, writes to the primary. With the primary
    /// stopped, what was replicated is still read; a write says the primary cannot be reached.
    @Test func readsGoToTheReplica_andWritesToThePrimary() throws {
        let primary = try TestPostgresServer.launch()
        let url = try primary.newDatabase()
        let catalog = try Catalog.open(at: url)
        _ = try catalog.importItems((2..<12).map { ImportRow(line: $0, key: "p\($0)", width: 100, height: 100 + $0) })
        let replica = try primary.replica()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let split = try Catalog.open(at: url, readingFrom: replica.url(database: database))
        try waitFor { try split.generation() == 1 }
        #expect(try split.items().count == 10)

        try primary.stop()
        #expect(try split.items().count == 10, "read from the replica")
        let page = try split.page(PageRequest(query: "width=375&cols=2&offset=0"))
        #expect(page.generation == 1)
        #expect(page.items.count == 10)
        #expect {
            try split.importItems([ImportRow(line: 2, key: "late", width: 1, height: 1)])
        } throws: { error in
            guard case StoreError.unreachable(let path, _) = error else { return false }
            return path == url
        }
    }

    /// The change stamp, which lets a server answer from memory, holds only while the replica
    /// answers the heartbeat's check: it goes within a heartbeat of the replica stopping, and
    /// comes back once it runs again.
    @Test func theStampGoesWhileTheReplicaIsDown() throws {
        let primary = try TestPostgresServer.launch()
        let url = try primary.newDatabase()
        _ = try Catalog.open(at: url).importItems([ImportRow(line: 2, key: "p", width: 100, height: 100)])
        let replica = try primary.replica()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let split = try Catalog.open(at: url, readingFrom: replica.url(database: database))
        try waitFor { try split.generation() == 1 && split.store.changeStamp() != nil }
        try replica.stop()
        try waitFor { split.store.changeStamp() == nil }
        #expect(throws: StoreError.self) { try split.generation() }
        try replica.start()
        try waitFor { (try? split.generation()) == 1 && split.store.changeStamp() != nil }
    }

    /// A kept connection found dropped is tried again on a new one; a list whose connection is
    /// lost after it handed rows fails instead, so that no row is handed twice.
    @Test func aListWhoseConnectionIsLostPartWay_failsWithoutHandingAnItemTwice() throws {
        let library = try Library(.postgres)
        let database = OrderDataTests.database(library)
        let file = try library.write("long.csv", Data(ImportTests.longCSV(rows: 20_500).utf8))
        let catalog = try library.catalog()
        _ = try catalog.importItems(from: file)
        #expect(try catalog.itemCount() == 20_500) // leaves a connection kept for the list
        var ids: [Int64] = []
        let error = #expect(throws: StoreError.self) {
            try catalog.forEachItem(order: .path) { item in
                ids.append(item.id)
                // Within the first of three fetches. The second was sent as the first arrived and
                // may still be answered; the third, sent once the second arrives, cannot be: the
                // backend is gone by then (pg_terminate_backend waits up to 10 s for it to exit).
                if ids.count == 5_000 {
                    _ = try? TestPostgres.psql(database, """
                        SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                        """)
                }
            }
        }
        guard case .unreachable = error else {
            Issue.record("the list fails as the database being unreachable, not with \(String(describing: error))")
            return
        }
        #expect([10_000, 20_000].contains(ids.count), "the rows of whole fetches before the connection was lost: \(ids.count)")
        #expect(Set(ids).count == ids.count, "no row twice")
        var again = 0
        try catalog.forEachItem(order: .path) { _ in again += 1 }
        #expect(again == 20_500, "the next list reconnects")
    }

    /// A new database on a new server with `rows` imported rows, a streaming replica of it, and
    /// `catalog serve` on the primary reading from the replica (its stderr in the library).
    static func servedFromAReplica(rows count: Int) throws -> (primary: TestPostgresServer, url: String, database: String, library: Library,
                                                               replica: TestPostgresServer, serve: ServeProcess, stderr: String) {
        let primary = try TestPostgresServer.launch()
        let url = try primary.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let library = try Library()
        let rows = try library.write("rows.csv", Data(("key,width,height\n" + (1...count).map { "k\($0),100,\(100 + $0)\n" }.joined()).utf8))
        #expect(try BuiltTool.run(["import", "--db", url, rows]).status == 0)
        let replica = try primary.replica()
        let stderr = library.path("serve.stderr")
        let serve = try ServeProcess(["--db", url, "--read-db", replica.url(database: database), "--quiet"], stderrPath: stderr)
        return (primary, url, database, library, replica, serve, stderr)
    }

    /// `catalog serve --read-db`: pages come from the replica and follow the primary's writes
    /// (the notification's generation is awaited on the replica, then the cache trusts it).
    @Test func serveReadsFromAReplica_andFollowsThePrimarysWrites() async throws {
        let (primary, url, _, library, replica, serve, _) = try Self.servedFromAReplica(rows: 30)
        defer {
            serve.stop()
            withExtendedLifetime(primary) {}
        }
        let page = "api/page?width=375&cols=2&offset=0&height=5000"
        let first = try await serve.waitFor(page) { $0.status == 200 }
        #expect(first.headers["X-Catalog-Generation"] == "1")

        let more = try library.write("more.csv", Data("key,width,height\nlate,100,100\n".utf8))
        #expect(try BuiltTool.run(["import", "--db", url, more]).status == 0)
        let after = try await serve.waitFor(page) { $0.headers["X-Catalog-Generation"] == "2" }
        let items = try #require(try JSONSerialization.jsonObject(with: after.body) as? [String: Any])["items"] as? [[String: Any]]
        #expect(items?.count == 31)

        // The replica stops: the heartbeat's check of it fails, so nothing is answered from
        // memory, pages and /api/health say 503 (a load balancer stops sending here), and both
        // answer 200 again once it is back.
        try replica.stop()
        let health = try await serve.waitFor("api/health") { $0.status == 503 }
        #expect(String(decoding: health.body, as: UTF8.self).contains("unreachable"))
        #expect(try await serve.get(page).status == 503)
        try replica.start()
        _ = try await serve.waitFor("api/health") { $0.status == 200 }
        let again = try await serve.waitFor(page) { $0.status == 200 }
        #expect(again.headers["X-Catalog-Generation"] == "2" && again.body == after.body)
    }

    /// `catalog serve --read-db`: a layout the server computed, served and stored on the primary
    /// is served from the server's memory until the replica shows it, not computed and stored
    /// again. Replay is paused on the replica, so that it cannot show it yet.
    @Test func serveWithAReplicaBehind_servesANewLayoutFromMemory_notStoringItAgain() async throws {
        let (primary, _, database, library, replica, serve, stderr) = try Self.servedFromAReplica(rows: 300)
        defer {
            serve.stop()
            withExtendedLifetime(library) {}
        }
        _ = try await serve.waitFor("api/health") { $0.status == 200 }
        try replica.psql(database, "SELECT pg_wal_replay_pause()")
        let stored = "SELECT id FROM layouts WHERE configuration LIKE 'waterfall width=500.0 cols=3 %'"
        let first = try await serve.get("api/page?width=500&cols=3")
        #expect(first.status == 200)
        try waitFor { try !primary.psql(database, stored).isEmpty } // the server's store, on the primary
        let id = try primary.psql(database, stored)
        for offset in [0, 3000, 6000] {
            let page = try await serve.get("api/page?width=500&cols=3&offset=\(offset)")
            #expect(page.status == 200, "from memory while the replica lags")
        }
        #expect(try primary.psql(database, stored) == id, "the layout not computed and stored again")
        try replica.psql(database, "SELECT pg_wal_replay_resume()")
        // The replica shows the layout: the server reads it from there now, and stores nothing.
        _ = try await serve.waitFor("api/layouts") { String(decoding: $0.body, as: UTF8.self).contains("width=500.0 cols=3 ") }
        let again = try await serve.get("api/page?width=500&cols=3&offset=3000")
        #expect(again.status == 200 && String(decoding: again.body, as: UTF8.self).contains("\"items\""))
        #expect(try primary.psql(database, stored) == id)
        #expect(try String(contentsOfFile: stderr, encoding: .utf8).isEmpty, "nothing logged")
    }

    @Test func serveRefusesScanningWithAReadReplica() throws {
        let refused = try BuiltTool.run(["serve", "--db", "postgres://x@/y", "--read-db", "postgres://x@/z", "--scan", "/tmp"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--scan and --read-db do not go together"), "\(refused.stderr)")
    }

    @Test func aReplicaIsOnlyForAPostgreSQLCatalog() {
        #expect {
            try Catalog.open(at: "/tmp/x.sqlite", readingFrom: "postgres://postgres@/x")
        } throws: { error in
            guard case StoreError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("both must be postgres:// URLs")
        }
    }
}
