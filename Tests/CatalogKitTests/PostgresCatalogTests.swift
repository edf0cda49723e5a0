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

    /// A database of another encoding than UTF-8 (LATIN1) is refused before any table is made
    /// there: the UTF-8 of titles went in as its own characters, and pages (which convert them
    /// in SQL) came back garbled while lists did not.
    @Test func aDatabaseNotInUTF8_isRefusedAndLeftWithoutTables() throws {
        let url = try TestPostgres.newDatabase()
        let name = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let latin = name + "_latin1"
        try TestPostgres.psql(name, "CREATE DATABASE \(latin) ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        let latinURL = url.replacingOccurrences(of: "/\(name)?", with: "/\(latin)?")
        #expect {
            try Catalog.open(at: latinURL)
        } throws: { error in
            "\(error)".contains("the database's encoding is LATIN1") && "\(error)".contains("createdb --encoding=UTF8")
        }
        #expect(try TestPostgres.psql(latin, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func aDatabaseWithOtherTables_isRefusedAndLeftUntouched() throws {
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        try TestPostgres.psql(database, "CREATE TABLE invoices (id int); INSERT INTO invoices VALUES (7)")
        #expect(throws: StoreError.notACatalog(path: url, reason: "a PostgreSQL database with other tables (invoices)")) {
            try Catalog.open(at: url)
        }
        #expect(StoreError.notACatalog(path: url, reason: "r").description.hasSuffix("it was not modified. A catalog needs a database of its own: name a new one with --db or CATALOG_DB."))
        #expect(StoreError.notACatalog(path: "postgres-backup.sqlite", reason: "r").description.hasSuffix("A catalog needs a file of its own: name a new one with --db or CATALOG_DB."))
        // A database at its connection limit was reached: not "cannot reach ... once it is back".
        let full = StoreError.unreachable(path: url, reason: #"too many connections for role "r" (SQLSTATE 53300)"#).description
        #expect(full.hasPrefix("the catalog's database at \(url) has no room for another connection (") && !full.contains("cannot reach"), "\(full)")
        #expect(try TestPostgres.psql(database, "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "invoices")
        // Tables in a schema of their own too (it was taken for an empty database, and made a catalog beside them).
        let other = try TestPostgres.newDatabase()
        let otherName = try #require(URLComponents(string: other)?.path.dropFirst()).description
        try TestPostgres.psql(otherName, "CREATE SCHEMA app; CREATE TABLE app.users (id int); INSERT INTO app.users VALUES (1)")
        #expect(throws: StoreError.notACatalog(path: other, reason: "a PostgreSQL database with other tables (app.users)")) {
            try Catalog.open(at: other)
        }
        #expect(try TestPostgres.psql(otherName, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // But not an extension's (pg_cron's cron.job, PostGIS topology's): the database's own.
        let withExtension = try TestPostgres.newDatabase()
        let extensionName = try #require(URLComponents(string: withExtension)?.path.dropFirst()).description
        try TestPostgres.psql(extensionName, "CREATE EXTENSION hstore; CREATE SCHEMA ext; CREATE TABLE ext.jobs (id int); ALTER EXTENSION hstore ADD TABLE ext.jobs")
        #expect(throws: Never.self) { _ = try Catalog.open(at: withExtension) }
        // A view alone counts too (one named `items` failed with PostgreSQL's "already exists").
        let withView = try TestPostgres.newDatabase()
        let viewName = try #require(URLComponents(string: withView)?.path.dropFirst()).description
        try TestPostgres.psql(viewName, "CREATE VIEW items AS SELECT 1 AS id")
        #expect(throws: StoreError.notACatalog(path: withView, reason: "a PostgreSQL database with other tables (public.items)")) {
            try Catalog.open(at: withView)
        }
        // And a type of that name.
        let withType = try TestPostgres.newDatabase()
        let typeName = try #require(URLComponents(string: withType)?.path.dropFirst()).description
        try TestPostgres.psql(typeName, "CREATE TYPE items AS (a int)")
        #expect(throws: StoreError.notACatalog(path: withType, reason: "a PostgreSQL database with other tables (public.items)")) {
            try Catalog.open(at: withType)
        }
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
        ("postgres://me@db.example/photos?password=secret&port=5433", "the URL holds a password; put it in PGPASSWORD or ~/.pgpass instead"),
        ("postgres://me@db.example/photos?Password=secret", "the URL holds a password; put it in PGPASSWORD or ~/.pgpass instead"),
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
            return path == url.replacingOccurrences(of: "secret", with: "***") && message.contains(reason)
                && !"\(error)".contains("secret")
        }
    }

    /// The URL's host and the password file's lines, as libpq reads them: an IPv6 address in
    /// brackets; a socket in the default folder is "localhost" to the file, one in another
    /// folder is that folder; a file with no line for the connection says which line it needs.
    @Test func hostsAndPasswordFileLinesAreReadAsLibpqReadsThem() throws {
        #expect(try PostgresLocation(url: "postgres://u@[::1]:5433/p", environment: [:]).endpoint == .tcp(host: "::1", port: 5433))
        let folder = try Library()
        let file = folder.path("pgpass")
        func password(_ url: String, _ line: String) throws -> PostgresLocation {
            try line.write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, 0o600)
            return try PostgresLocation(url: url, environment: ["PGPASSFILE": file])
        }
        let elsewhere = "postgres://ana@/anadb?host=/tmp/pg&port=55432"
        #expect(try password(elsewhere, "/tmp/pg:55432:anadb:ana:pw1\n").password == "pw1")
        let unmatched = try password(elsewhere, "localhost:55432:anadb:ana:pw1\n")
        #expect(unmatched.password == nil)
        #expect(unmatched.noPasswordReason == "the server asks for a password, and none was given: \(file) has no line for "
                + "/tmp/pg:55432:anadb:ana; set PGPASSWORD or add that line")
        #expect(try password("postgres://ana@/anadb?port=55432", "localhost:55432:anadb:ana:pw2\n").password == "pw2")
        #expect(try password("postgres://ana@/anadb?host=/var/run/postgresql", "localhost:5432:anadb:ana:pw3\n").password == "pw3")
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
            // Failed again, then found renamed and read at its new path: no longer failing there.
            _ = try store.apply([FileChange(path: path, stat: stat, fingerprint: 7, outcome: .failed(reason), itemID: kept.itemID, keepsItem: true)],
                                rootID: root)
            let renamed = Data("/photos/b.jpg".utf8)
            #expect(try store.move([FileMove(from: path, to: renamed, itemID: kept.itemID, stat: stat, fingerprint: 7, facts: facts)]) == [true])
            #expect(try store.fileErrors().isEmpty, "\(db)")
            #expect(try store.knownFiles(under: Data("/photos/".utf8)).map { [$0.itemID, Int64($0.status)] } == [[kept.itemID, 0]], "\(db)")
        }
    }

    /// A role granted only SELECT is served pages, laid out and left unstored as when the disk
    /// is full (it failed with the database's bare "permission denied"); a write it asks for is
    /// refused naming the catalog.
    @Test func aUserThatMayOnlyRead_isServedPagesLeftUnstored() throws {
        let library = try Library()
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        try library.write("b/two.png", Library.fixture("rgb.png"))
        let postgres = try TestPostgres.newDatabase()
        #expect(try BuiltTool.run(["scan", "--db", postgres, library.root.path]).status == 0)
        let database = String(try #require(URLComponents(string: postgres)?.path.dropFirst()))
        let role = "reader_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try TestPostgres.psql(database, "CREATE ROLE \(role) LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)")
        let reader = postgres.replacingOccurrences(of: "//postgres@", with: "//\(role)@")
        let page = ["page", "--width", "333", "--cols", "2", "--json"]
        let read = try BuiltTool.run(page + ["--db", reader])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(String(decoding: try BuiltTool.run(["layouts", "--db", postgres]).stdout, as: UTF8.self).hasPrefix("0 layouts,"), "nothing stored")
        let owner = try BuiltTool.run(page + ["--db", postgres])
        #expect(String(decoding: read.stdout, as: UTF8.self) == String(decoding: owner.stdout, as: UTF8.self))
        let write = try BuiltTool.run(["layouts", "--db", reader, "--budget", "256M"])
        #expect(write.status == 1)
        #expect(write.stderr.contains("the catalog at \(reader) does not let this user do that (permission denied"), "\(write.stderr)")
        // A role whose transactions are read only (as on a hot standby: SQLSTATE 25006) is served
        // the same, a stored layout and a new one; its pages failed with "database error".
        let frozen = "frozen_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try TestPostgres.psql(database, "CREATE ROLE \(frozen) LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO \(frozen); "
                              + "ALTER ROLE \(frozen) SET default_transaction_read_only = on")
        let standby = postgres.replacingOccurrences(of: "//postgres@", with: "//\(frozen)@")
        for width in ["333", "334"] {
            let wide = ["page", "--width", width, "--cols", "2", "--json"]
            let frozenRead = try BuiltTool.run(wide + ["--db", standby])
            #expect(frozenRead.status == 0, "\(frozenRead.stderr)")
            #expect(frozenRead.stdout == (try BuiltTool.run(wide + ["--db", postgres])).stdout, "width \(width)")
        }
        let frozenWrite = try BuiltTool.run(["layouts", "--db", standby, "--budget", "256M"])
        #expect(frozenWrite.status == 1 && frozenWrite.stderr.contains("takes no writes on this connection")
                && frozenWrite.stderr.contains("Write through the primary"), "not grants: \(frozenWrite.stderr)")
    }

    /// A role that may not create tables in the database (PostgreSQL 15 on: only its owner may in
    /// `public`) is told how to give it that, when it would make a new catalog there.
    @Test func aRoleThatMayNotMakeTheTables_isToldHowToGiveItThat() throws {
        let library = try Library()
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        let postgres = try TestPostgres.newDatabase()
        let database = String(try #require(URLComponents(string: postgres)?.path.dropFirst()))
        let role = "maker_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try TestPostgres.psql(database, "CREATE ROLE \(role) LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        let scan = try BuiltTool.run(["scan", "--db", postgres.replacingOccurrences(of: "//postgres@", with: "//\(role)@"), library.root.path])
        #expect(scan.status == 1)
        #expect(scan.stderr.contains("this role may not make the catalog's tables") && scan.stderr.contains("createdb --owner=ROLE"), "\(scan.stderr)")
    }

    /// The same role, on a catalog an older version made (its newest migration not applied yet):
    /// it cannot bring the schema up, and is told so, and what to do, not only the database's
    /// "permission denied for schema public".
    @Test func aUserThatMayOnlyRead_isToldItCannotBringAnOlderCatalogUp() throws {
        let library = try Library()
        try library.write("a/one.jpg", Library.fixture("baseline.jpg"))
        let postgres = try TestPostgres.newDatabase()
        #expect(try BuiltTool.run(["scan", "--db", postgres, library.root.path]).status == 0)
        let database = String(try #require(URLComponents(string: postgres)?.path.dropFirst()))
        let newest = try #require(PostgresStore.schemaVersion.split(separator: "_").first).description
        let role = "reader_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try TestPostgres.psql(database, "DELETE FROM catalog_migrations WHERE identifier LIKE '\(newest)%'; "
            + "CREATE ROLE \(role) LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)")
        let reader = postgres.replacingOccurrences(of: "//postgres@", with: "//\(role)@")
        let list = try BuiltTool.run(["list", "--db", reader])
        #expect(list.status == 1)
        #expect(list.stderr.contains("this role may not bring the catalog to this version's schema (1 of its migrations to apply, the first \(PostgresStore.schemaVersion))")
                && list.stderr.contains("as a role that may (the catalog's owner)"), "\(list.stderr)")
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

    /// An import refused into a database without a catalog leaves it without tables, as an
    /// import refused into a new SQLite file leaves no file: `catalog list` then says there is
    /// no catalog there. It left an empty catalog, read as one with no items. Refused into a
    /// catalog with items, the catalog stays as it was.
    @Test func anImportRefusedIntoADatabaseWithoutACatalogLeavesNone() throws {
        let library = try Library()
        let postgres = try TestPostgres.newDatabase()
        let twice = try library.write("twice.csv", Data("key,width,height\nx,1,1\nx,2,2\n".utf8))
        let refused = try BuiltTool.run(["import", "--db", postgres, twice])
        #expect(refused.status == 1 && refused.stderr.contains("appears twice"), "\(refused.stderr)")
        let list = try BuiltTool.run(["list", "--db", postgres])
        #expect(list.status == 1 && list.stderr.contains("there is no catalog there (a database without tables)"), "\(list.stderr)")
        let database = try #require(URLComponents(string: postgres)?.path.dropFirst()).description
        // Nothing of the catalog's is left: no table, index, sequence or function.
        #expect(try TestPostgres.psql(database, """
            SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)
                 + (SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace)
            """) == "0\n")
        // Its functions went too: the next import makes the catalog again.
        let good = try BuiltTool.run(["import", "--db", postgres, try library.write("good.csv", Data("key,width,height\nx,1,1\n".utf8))])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try BuiltTool.run(["import", "--db", postgres, twice]).status == 1)
        let kept = try BuiltTool.run(["list", "--db", postgres, "--json"])
        #expect(kept.status == 0 && String(decoding: kept.stdout, as: UTF8.self).contains(#""path":"x""#), "\(kept.stderr)")
    }
}
