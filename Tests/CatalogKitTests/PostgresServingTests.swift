import CatalogKit
import CatalogModel
import CatalogStorePostgres
import Foundation
import Testing

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

    /// Two servers on one database tag the same response alike from their first response on (a
    /// server just started tagged it without the catalog's identity, read in the background, so
    /// that a load balancer's clients missed their revalidations).
    @Test func aServerJustStartedTagsItsFirstResponseAsTheOthersDo() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let url = try TestPostgres.newDatabase()
        let library = try Library()
        let csv = try library.write("items.csv", Data("key,width,height\na,100,200\nb,300,200\n".utf8))
        #expect(try BuiltTool.run(["import", "--db", url, csv]).status == 0)
        let warm = try ServeProcess(["--db", url, "--quiet"], stderrPath: library.root.path + "/warm.err")
        defer { warm.stop() }
        let page = "api/page?width=375&cols=2&offset=0"
        let warmed = try await warm.waitFor(page) { $0.headers["Etag"] != nil || $0.headers["ETag"] != nil }
        let fresh = try ServeProcess(["--db", url, "--quiet"], stderrPath: library.root.path + "/fresh.err")
        defer { fresh.stop() }
        for path in [page, "api/items/1"] {
            let first = try await fresh.get(path), other = try await warm.get(path)
            let tag = first.headers["Etag"] ?? first.headers["ETag"]
            #expect(tag != nil && tag == (other.headers["Etag"] ?? other.headers["ETag"]), "\(path): \(first.headers) against \(other.headers)")
        }
        #expect(warmed.status == 200)
    }

    /// A database with no room for another connection (here its role's CONNECTION LIMIT of 3;
    /// a server's max_connections says the same, SQLSTATE 53300): requests beyond it take turns on
    /// the server's own connections, each answered, where most were a 503 and an outage was
    /// logged and over again within the second.
    @Test func requestsBeyondTheDatabasesRoomTakeTurnsOnTheServersConnections() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltTool.catalog.path), "build the catalog binary first (swift build)")
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let role = "limited_" + database.suffix(12)
        try TestPostgres.psql(database, "CREATE ROLE \(role) LOGIN CONNECTION LIMIT 3; ALTER DATABASE \(database) OWNER TO \(role)")
        let limited = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        let library = try Library()
        let rows = (0..<2_000).map { "k\($0),\(100 + $0 % 700),\(100 + $0 % 530),2020-01-\(String(format: "%02d", 1 + $0 % 28))T00:00:00\n" }
        let csv = try library.write("items.csv", Data(("key,width,height,date\n" + rows.joined()).utf8))
        #expect(try BuiltTool.run(["import", "--db", limited, csv]).status == 0)
        let stderr = library.root.path + "/serve.err"
        let serve = try ServeProcess(["--db", limited], stderrPath: stderr)
        defer { serve.stop() }
        // Pages of 48 configurations never laid out, at once: each reads the order data.
        let address = serve.address
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for width in [320, 375, 414, 768] {
                for columns in 2...4 {
                    for offset in [0, 3_000, 9_000, 20_000] {
                        group.addTask { try await ServeProcess.get(address + "api/page?width=\(width)&cols=\(columns)&offset=\(offset)").status }
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 48 && statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 }.count) of 48 not 200")
        let said = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(!said.contains("cannot reach"), "\(said.prefix(600))")
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
        let cached = try PageRequest(query: "width=375&cols=2")
        _ = try server.page(cached) // reads the order data into memory, and stores the layout
        let old = try #require(try pages.page(cached)) // its windows kept
        let identity = pages.knownIdentity()

        _ = try TestPostgres.psql("postgres", "DROP DATABASE \(database) WITH (FORCE)")
        _ = try TestPostgres.psql("postgres", "CREATE DATABASE \(database)")
        _ = try Catalog.open(at: url).importItems(PagerTests.importRows(200, seed: 2))
        try waitFor { _ = try? pages.generation(); return server.store.changeStamp().map { $0.stamp[0] != epoch } ?? false } // connected again
        let fresh = try Catalog.open(at: url) // a process that never saw the first database
        // The page cache's windows were the first database's, at its generation 1 as the new
        // one's: it served them, and the server's ETags (the identity) stayed the first one's.
        let now = try fresh.page(cached) // stores the new one's layout
        let freshIdentity = try fresh.identity()
        #expect(pages.knownIdentity() != identity && pages.knownIdentity() == freshIdentity)
        #expect(try pages.page(cached)?.items == now.items && now.items != old.items)
        for query in ["width=414&cols=3", "width=320&cols=4&sections=month"] {
            let request = try PageRequest(query: query)
            var served: Page?
            #expect(throws: Never.self, "\(query)") { served = try server.page(request) }
            #expect(served?.items == (try fresh.page(request)).items, "\(query)")
        }
    }

    /// A catalog taken back to an older generation (a dump restored without its layouts, or with
    /// layouts stored after it was made): the layouts stored at the generations it reaches again
    /// go with the write that reaches them, in its transaction. They were taken as fresh, for
    /// other items. (What a running server keeps in memory is not covered: the README asks for
    /// servers to be stopped during a restore.)
    @Test func whenACatalogIsTakenBack_thenLayoutsOfTheGenerationsItReachesAgainGo() throws {
        let url = try TestPostgres.newDatabase()
        let database = try #require(URLComponents(string: url)?.path.dropFirst()).description
        let server = try Catalog.open(at: url)
        _ = try server.importItems(PagerTests.importRows(300, seed: 1)) // generation 1: the dump's
        _ = try server.importItems(PagerTests.importRows(200, from: 300, seed: 2))
        let request = try PageRequest(query: "width=375&cols=2")
        _ = try server.page(request) // the layout stored at generation 2, the order data in memory
        #expect(try server.layouts().map(\.generation) == [2])
        // As the dump of generation 1 restored in one transaction: its rows, its generation, its chunk ids.
        _ = try TestPostgres.psql(database, """
            BEGIN; DELETE FROM items WHERE id > 300; UPDATE catalog SET generation = 1;
            UPDATE order_data SET generation = -1; COMMIT
            """)
        let other = try Catalog.open(at: url) // another process writes: generation 2 again
        _ = try other.importItems(PagerTests.importRows(50, from: 900, seed: 3))
        #expect(try other.generation() == 2)
        #expect(try other.layouts().isEmpty, "the layout of the generation 2 before")
        #expect(try other.page(request).source == .computed, "laid out from the catalog as it is")
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
        let file = try library.write("long.csv", Data(ImportIntoCatalogTests.longCSV(rows: 20_500).utf8))
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
