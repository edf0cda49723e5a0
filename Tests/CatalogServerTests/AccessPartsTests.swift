import Foundation
@testable import CatalogServer
import Testing

/// The parts of access control one at a time: the failure window's arithmetic, the token
/// file's lines, file names in Content-Disposition and the gallery's policy.
struct AccessPartsTests {
    /// Loopback is an address, or localhost: a name that starts like an address is anybody's
    /// (its owner can make it resolve to 127.0.0.1), and a public URL with such a name is public.
    @Test(arguments: [("localhost", true), ("LOCALHOST", true), ("gallery.localhost", true), ("127.0.0.1", true), ("127.255.0.9", true),
                      ("::1", true), ("[::1]", true), ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true),
                      ("127.evil.example", false), ("127.0.0.1.rebind.example", false), ("127.0.0.1evil", false), ("127..", false),
                      ("127.1", false), ("128.0.0.1", false), ("10.0.0.1", false), ("::2", false), ("::ffff:10.0.0.1", false),
                      ("localhost.example", false), ("", false)])
    func onlyLoopbackAddressesAndLocalhostAreLoopback(_ host: String, _ loopback: Bool) {
        #expect(ServeAccess.isLoopback(host: host) == loopback)
    }

    /// A PostgreSQL catalog's default token file is named after its server, port and database
    /// as libpq reads the URL: two databases or two servers never share one (a token made for
    /// one opened the other when the name left out the port, the socket's folder and ?dbname=).
    @Test func aPostgreSQLCatalogsTokenFileIsItsServersAndDatabasesOwn() {
        let environment = ["XDG_CONFIG_HOME": "/config"]
        func name(_ url: String) -> String {
            String(TokenFile.defaultPath(forCatalog: url, environment: environment).dropFirst("/config/catalog/".count))
        }
        #expect(name("postgres://catalog@db.example:5432/photos") == "db.example-photos.tokens")
        #expect(name("postgresql://catalog@/photos") == "photos.tokens")
        #expect(name("postgres://catalog@/photos?host=/var/run/postgresql") == "photos.tokens")
        #expect(name("postgres://catalog@db.example:5433/photos") == "db.example-_p5433-photos.tokens")
        #expect(name("postgres://postgres@/photos?host=/tmp/pg&port=5433") == "_2ftmp_2fpg-_p5433-photos.tokens")
        #expect(name("postgres://postgres@/?dbname=p2&host=/tmp/pg") == "_2ftmp_2fpg-p2.tokens")
        #expect(name("postgres://catalog@[::1]:5432/photos") == "_3a_3a1-photos.tokens")
        // Never one name for two catalogs, whatever their names hold.
        let urls = ["postgres://u@pg/prod-photos", "postgres://u@pg-prod/photos", "postgres://u@db:5433/photos", "postgres://u@db-5433/photos",
                    "postgres://u@/_tmp_pg-p2", "postgres://u@/p2?host=/tmp/pg", "postgres://u@5433/photos", "postgres://u@/photos?port=5433",
                    "postgres://u@/?dbname=p3&host=/tmp/pg", "postgres://u@db.example/photos", "postgres://u@/db.example-photos",
                    "postgres://u@x/Photos"]
        #expect(name("postgres://u@x/Photos") == "x-_50hotos.tokens", "no two names that differ only in case")
        #expect(Set(urls.map(name)).count == urls.count, "\(urls.map(name))")
        // A long socket folder and database name: still a name a file system takes, and its own.
        let folder = "/srv/" + String(repeating: "sockets-", count: 12), database = String(repeating: "d", count: 63)
        let long = [name("postgres://u@/\(database)?host=\(folder)"), name("postgres://u@/\(database)?host=\(folder)x")]
        #expect(long.allSatisfy { $0.utf8.count <= 255 } && long[0] != long[1], "\(long)")
        #expect(TokenFile.formerDefaultPath(forCatalog: "postgres://u@db:5433/photos", environment: environment) == "/config/catalog/db-photos.tokens")
        #expect(TokenFile.formerDefaultPath(forCatalog: "postgres://u@db/photos", environment: environment) == nil, "the same name")
        #expect(TokenFile.defaultPath(forCatalog: "/data/photos.sqlite", environment: environment) == "/data/photos.tokens")
    }

    @Test func aPublicURLWhoseNameStartsLikeALoopbackAddressIsPublic() {
        #expect(!ServeAccess.isLoopback(url: "https://127.photos.example.com/"))
        #expect(ServeAccess.isLoopback(url: "http://127.0.0.1:8080/"))
    }

    @Test func whenAnAddressPassesTheLimit_thenItWaitsUntilEnoughFailuresAreOlderThanTheWindow() {
        let limiter = FailureLimiter(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        for second in [0, 10, 20] { limiter.recordFailure("192.0.2.1", now: start + .seconds(second)) }
        #expect(limiter.retryAfter("192.0.2.1", now: start + .seconds(30)) == .seconds(30), "until the first failure is a minute old")
        #expect(limiter.retryAfter("198.51.100.9", now: start + .seconds(30)) == nil, "another address is not touched")
        #expect(limiter.retryAfter("192.0.2.1", now: start + .seconds(60)) == nil, "the first one aged out: 2 left")
        limiter.recordFailure("192.0.2.1", now: start + .seconds(61))
        #expect(limiter.retryAfter("192.0.2.1", now: start + .seconds(61)) == .seconds(9), "the one at 10 s must age out")
    }

    @Test func whenTheLimiterIsFull_thenAddressesWithoutRecentFailuresAreForgottenFirst() {
        let limiter = FailureLimiter(limit: 1, window: .seconds(60), maximumAddresses: 2)
        let start = ContinuousClock.now
        limiter.recordFailure("a", now: start)
        limiter.recordFailure("b", now: start + .seconds(50))
        limiter.recordFailure("c", now: start + .seconds(70)) // "a" is older than the window
        #expect(limiter.retryAfter("b", now: start + .seconds(70)) != nil)
        #expect(limiter.retryAfter("c", now: start + .seconds(70)) != nil)
    }

    @Test func theTokenFileSkipsCommentsBlankAndShortLines_andRevokeKeepsTheRest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = TokenFile(path: folder.appendingPathComponent("catalog.tokens").path)
        let (first, _) = try file.appendNewToken(note: "phone")
        let handMade = String(repeating: "h", count: 40)
        let existing = try String(contentsOfFile: file.path, encoding: .utf8)
        try (existing + "\n# a comment\n   \nshort\n\(handMade)   # laptop\n").write(toFile: file.path, atomically: false, encoding: .utf8)

        let (tokens, warnings) = try file.read()
        #expect(tokens.map(\.label) == ["phone", "laptop"])
        #expect(warnings.count == 1 && warnings[0].contains(":5: a token must be at least 32 characters"))
        let revoked = try file.revoke("laptop")
        #expect(revoked.map(\.label) == ["laptop"])
        let left = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(left.contains(first) && left.contains("# a comment") && !left.contains(handMade))
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(throws: AccessError.self) { try file.revoke("nobody") }
        #expect(throws: AccessError.self) { try file.revoke("ab") } // too short to be a fingerprint, and no such label
        #expect(AccessError.noSuchToken("4af", file.path).description.hasSuffix("a fingerprint is 6 characters or more"))
        // A label two tokens share names neither: nothing is revoked.
        let (one, _) = try file.appendNewToken(note: "shared")
        let (two, _) = try file.appendNewToken(note: "shared")
        #expect { try file.revoke("shared") } throws: { error in
            guard case AccessError.ambiguous(_, _, let fingerprints) = error else { return false }
            return fingerprints.count == 2
        }
        let after = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(after.contains(one) && after.contains(two))
        // The same token on two lines (two token files joined) is one token: both lines go. It
        // was "names 2 tokens (F, F): revoke each by its fingerprint", which no fingerprint could.
        let twice = "\(one)  # copied\n"
        try (after + twice).write(toFile: file.path, atomically: false, encoding: .utf8)
        let fingerprint = String(AccessToken(token: one, note: "").fingerprint)
        #expect(try file.revoke(fingerprint).map(\.fingerprint) == [fingerprint])
        let once = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!once.contains(one) && once.contains(two))
        // Under another label too: revoked by one label, the token is gone from every line.
        let (laptop, _) = try file.appendNewToken(note: "laptop")
        try (String(contentsOfFile: file.path, encoding: .utf8) + "\(laptop)  # phone\n").write(toFile: file.path, atomically: false, encoding: .utf8)
        #expect(try file.revoke("laptop").count == 1)
        #expect(try !String(contentsOfFile: file.path, encoding: .utf8).contains(laptop), "no line of it signs in")
        try (once + "\(one)  # shared\n").write(toFile: file.path, atomically: false, encoding: .utf8)
        // Through a link to the file: the file is changed, the link stays a link.
        let link = TokenFile(path: folder.appendingPathComponent("link.tokens").path)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: file.path)
        _ = try link.revoke(String(AccessToken(token: one, note: "").fingerprint))
        #expect(try !String(contentsOfFile: file.path, encoding: .utf8).contains(one), "revoked in the file the link names")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == file.path)
    }

    /// A session lasts as long as the server says now: one made under a longer `--session-days`
    /// is stale once the server is started with a shorter one.
    @Test func aSessionOutlastingTheServersLifetimeIsStale() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = TokenFile(path: folder.appendingPathComponent("catalog.tokens").path)
        _ = try file.appendNewToken(note: "phone")
        let tokens = AccessTokens(file: file) { _ in }
        let token = try #require(try file.read().tokens.first)
        let long = SessionCookie(lifetime: .seconds(3650 * 86_400), secure: false)
        let short = SessionCookie(lifetime: .seconds(86_400), secure: false)
        func cookie(_ made: SessionCookie, at date: Date) -> String { String(made.make(for: token, now: date).prefix { $0 != ";" }) }
        let now = Date()
        func valid(_ verdict: SessionCookie.Verdict?) -> Bool { if case .valid? = verdict { true } else { false } }
        #expect(valid(long.verify(cookieHeader: cookie(long, at: now), tokens: tokens, now: now)))
        #expect(!valid(short.verify(cookieHeader: cookie(long, at: now), tokens: tokens, now: now)), "a 10-year session, a 1-day server")
        #expect(valid(short.verify(cookieHeader: cookie(short, at: now), tokens: tokens, now: now.addingTimeInterval(3_600))))
        #expect(!valid(short.verify(cookieHeader: cookie(short, at: now), tokens: tokens, now: now.addingTimeInterval(86_401))), "expired")
    }

    /// The listener is loopback-only by the addresses its name has, not by the name: a name
    /// that does not resolve, or resolves past loopback, needs access control.
    @Test func aListenerIsLoopbackOnlyByTheAddressesItsNameHas() {
        for host in ["127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost"] { #expect(ServeAccess.listensOnLoopbackOnly(host: host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.0.2.2", "no-such-name.invalid"] { #expect(!ServeAccess.listensOnLoopbackOnly(host: host), "\(host)") }
    }

    /// A public URL's origin is what a browser sends as Origin: without the scheme's own port.
    @Test func anOriginLeavesOutTheSchemesOwnPort() {
        #expect(ServeAccess.origin(of: "https://Photos.example.com:443/") == "https://photos.example.com")
        #expect(ServeAccess.origin(of: "http://photos.example.com:80/x") == "http://photos.example.com")
        #expect(ServeAccess.origin(of: "https://photos.example.com:8443/") == "https://photos.example.com:8443")
        #expect(ServeAccess.origin(of: "http://photos.example.com:443/") == "http://photos.example.com:443")
    }

    /// A token file saved with a byte order mark keeps its first token.
    @Test func aByteOrderMarkDoesNotHideTheFirstToken() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = String(repeating: "b", count: 40)
        let file = TokenFile(path: folder.appendingPathComponent("bom.tokens").path)
        try Data([0xEF, 0xBB, 0xBF] + Array("\(token) # bom\r\n".utf8)).write(to: URL(fileURLWithPath: file.path))
        let tokens = try file.read().tokens
        #expect(tokens.map(\.label) == ["bom"])
        #expect(tokens.first?.fingerprint == AccessToken(token: token, note: "").fingerprint)
    }

    /// A file saved with CRLF line ends (a Windows editor) holds every one of its tokens, each
    /// with its own note, and a revoke removes one line of it, not the whole file.
    @Test func aFileWithCRLFLineEndsHoldsEveryToken_andRevokeRemovesOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = String(repeating: "c", count: 40), second = String(repeating: "d", count: 40), third = String(repeating: "e", count: 40)
        let file = TokenFile(path: folder.appendingPathComponent("crlf.tokens").path)
        try Data("\(first) # one\r\n\(second) # two\r\n# a comment\r\n\(third)\r\n".utf8).write(to: URL(fileURLWithPath: file.path))
        let tokens = try file.read().tokens
        #expect(tokens.map(\.label) == ["one", "two", ""])
        #expect(tokens.map(\.fingerprint) == [first, second, third].map { AccessToken(token: $0, note: "").fingerprint })
        #expect(try file.revoke("two").map(\.label) == ["two"])
        #expect(try file.read().tokens.map(\.fingerprint) == [first, third].map { AccessToken(token: $0, note: "").fingerprint })
    }

    @Test func aFileNameBecomesAQuotedASCIIFallbackAndAnExactEncodedName() {
        #expect(ContentDisposition.inline(fileName: "kite.jpg") == #"inline; filename="kite.jpg"; filename*=UTF-8''kite.jpg"#)
        #expect(ContentDisposition.inline(fileName: "a\"b\\c\r\nd é.jpg")
                == #"inline; filename="a_b_c__d _.jpg"; filename*=UTF-8''a%22b%5Cc__d%20%C3%A9.jpg"#)
        // Nothing that reorders or hides text in a "Save as" box: a right-to-left override
        // showed "photo\u{202E}gpj.exe" as "photoexe.jpg". Other letters stay as they are.
        #expect(ContentDisposition.inline(fileName: "photo\u{202E}gpj.exe") == #"inline; filename="photo_gpj.exe"; filename*=UTF-8''photo_gpj.exe"#)
        #expect(ContentDisposition.inline(fileName: "a\u{2066}b\u{200F}c\u{85}d\u{7F}.jpg") == #"inline; filename="a_b_c_d_.jpg"; filename*=UTF-8''a_b_c_d_.jpg"#)
        #expect(ContentDisposition.inline(fileName: "סוכה.jpg").hasSuffix("filename*=UTF-8''%D7%A1%D7%95%D7%9B%D7%94.jpg"))
        // `%` too, which some clients would decode in the fallback ("%2F" as "/").
        #expect(ContentDisposition.inline(fileName: "%2F slash.jpg") == #"inline; filename="_2F slash.jpg"; filename*=UTF-8''%252F%20slash.jpg"#)
    }

    @Test func theGalleryPolicyListsValidOrigins_andEveryWebOriginPastTheLimit() {
        let policy = GalleryRoutes.policy(imageOrigins: ["https://i.pinimg.com", "http://cdn.example:8080", "https://bad host; script-src *", "http://[::1]:8080"])
        #expect(policy.contains("img-src 'self' https://i.pinimg.com http://cdn.example:8080;"))
        #expect(!policy.contains("bad host"), "nothing that could end the directive")
        #expect(!policy.contains("[::1]"), "no host source can name an IPv6 address: browsers call it invalid")
        // An empty port (kept by earlier imports) is the default one; a port of letters names nothing.
        #expect(GalleryRoutes.policy(imageOrigins: ["https://cdn5.example.com:", "https://cdn6.example.com:x8"])
            .contains("img-src 'self' https://cdn5.example.com;"))
        let many = (0..<CatalogService.webOriginLimit).map { "https://host\($0).example" }
        #expect(GalleryRoutes.policy(imageOrigins: many).contains("img-src 'self' https: http:;"))
        // Not known (the database away since the server started): any, not none.
        #expect(GalleryRoutes.policy(imageOrigins: nil).contains("img-src 'self' https: http:;"))
        // A host beyond ASCII as the browser fetches it (it was left out, and its images blocked);
        // a label of its own beyond ASCII still cannot bring in a space or a semicolon.
        let international = GalleryRoutes.policy(imageOrigins: ["https://ünï.example", "http://BÜCHER.example:8080", "https://ü ;x.example",
                                                                "https://xn--n-nga1b.example"])
        #expect(international.contains("img-src 'self' https://xn--n-nga1b.example http://xn--bcher-kva.example:8080;"), "\(international)")
    }

    @Test func tokensAppendedWhileOthersAreRevokedAreNeverLost() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = TokenFile(path: folder.appendingPathComponent("catalog.tokens").path)
        for index in 0..<40 { _ = try file.appendNewToken(note: "old-\(index)") }
        DispatchQueue.concurrentPerform(iterations: 80) { index in
            if index % 2 == 0 {
                _ = try? file.appendNewToken(note: "new-\(index / 2)")
            } else {
                _ = try? file.revoke("old-\(index / 2)")
            }
        }
        let labels = Set(try file.read().tokens.map(\.label))
        #expect(labels == Set((0..<40).map { "new-\($0)" }), "every append kept, every old token revoked")
    }
}
