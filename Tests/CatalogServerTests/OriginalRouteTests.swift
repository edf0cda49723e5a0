import CatalogKit
import Foundation
@testable import CatalogServer
@testable import CatalogStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// `/api/items/{id}/original`: the scanned files themselves, with ranges, validators and
/// preconditions, whatever their paths; and a catalog replaced under the server.
@Suite struct OriginalRouteTests {
    /// The preconditions RFC 9110 asks an origin to evaluate (§13.1, in §13.2.2's order), found
    /// ignored by exploratory testing: If-Match and If-Unmodified-Since refuse a changed file
    /// with 412 (a download resumed with If-Match got the new file's bytes after the old
    /// ones), If-Match before If-None-Match; dates in all three forms; If-Range by date; tabs
    /// in tag lists.
    @Test func originalsEvaluateEveryPrecondition() async throws {
        let served = try ServedCatalog(imported: 0)
        let jpeg = try #require(try served.catalog.items(order: .path).first { $0.format == "jpeg" })
        let uri = "/api/items/\(jpeg.id)/original"
        try await served.test { client in
            let (tag, modified) = try await client.execute(uri: uri, method: .get) { response in
                (try #require(response.headers[.eTag]), try #require(response.headers[.lastModified]))
            }
            let seconds = try #require(ItemRoutes.parseHTTPDate(modified))
            let earlier = ItemRoutes.httpDate(seconds - 60)
            func status(_ headers: HTTPFields) async throws -> HTTPResponse.Status {
                try await client.execute(uri: uri, method: .get, headers: headers) { $0.status }
            }
            #expect(try await status([.ifMatch: "\"nope\"", .range: "bytes=0-9"]) == .preconditionFailed)
            #expect(try await status([.ifMatch: "W/" + tag]) == .preconditionFailed, "If-Match compares strongly")
            #expect(try await status([.ifMatch: "\"nope\", " + tag, .range: "bytes=0-9"]) == .partialContent)
            #expect(try await status([.ifMatch: "*"]) == .ok)
            #expect(try await status([.ifMatch: "\"nope\"", .ifNoneMatch: tag]) == .preconditionFailed, "If-Match first")
            #expect(try await status([.ifUnmodifiedSince: earlier]) == .preconditionFailed)
            #expect(try await status([.ifUnmodifiedSince: modified]) == .ok)
            #expect(try await status([.ifMatch: tag, .ifUnmodifiedSince: earlier]) == .ok, "If-Unmodified-Since is ignored beside If-Match")
            try await client.execute(uri: uri, method: .get, headers: [.ifMatch: "\"nope\""]) { response in
                let refused = try response.error
                #expect(refused.message.contains("If-Match") && response.status == .preconditionFailed)
            }
            // The obsolete date forms name the same second.
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            func form(_ format: String) -> String {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = format
                return formatter.string(from: date)
            }
            let day = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: date).day!
            let asctime = form("EEE MMM") + (day < 10 ? "  " : " ") + form("d HH:mm:ss yyyy")
            for text in [modified, form("EEEE, dd-MMM-yy HH:mm:ss 'GMT'"), asctime] {
                #expect(ItemRoutes.parseHTTPDate(text) == seconds, "\(text)")
                #expect(try await status([.ifModifiedSince: text]) == .notModified, "\(text)")
            }
            #expect(ItemRoutes.parseHTTPDate("yesterday") == nil)
            // A date later than now is no copy the client had (RFC 7232 §3.3): ignored, the file sent.
            let future = DateFormatter()
            future.locale = Locale(identifier: "en_US_POSIX")
            future.timeZone = TimeZone(identifier: "GMT")
            future.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            #expect(try await status([.ifModifiedSince: future.string(from: Date().addingTimeInterval(86_400 * 365))]) == .ok)
            // RFC 850's two-digit year: more than 50 years ahead is the past century (§5.6.7).
            let gregorian = Calendar(identifier: .gregorian)
            // From a whole second: the header has no fractions, and a formatter may round them up.
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let ahead = gregorian.date(byAdding: .day, value: 30, to: gregorian.date(byAdding: .year, value: 50, to: now)!)!
            let rfc850 = DateFormatter()
            rfc850.locale = Locale(identifier: "en_US_POSIX")
            rfc850.timeZone = TimeZone(identifier: "GMT")
            rfc850.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss 'GMT'"
            let pastCentury = Int64(gregorian.date(byAdding: .year, value: -100, to: ahead)!.timeIntervalSince1970)
            #expect(ItemRoutes.parseHTTPDate(rfc850.string(from: ahead)) == pastCentury, "\(rfc850.string(from: ahead))")
            // If-Range by the exact date, once that date is a strong validator (a second past):
            // the range; by another date: the whole file.
            try await waitUntil("the file's date a second past") { Int64(Date().timeIntervalSince1970) - 1 > seconds }
            #expect(try await status([.range: "bytes=0-9", .ifRange: modified]) == .partialContent)
            #expect(try await status([.range: "bytes=0-9", .ifRange: earlier]) == .ok)
            // A tag list with tabs around its commas.
            #expect(try await status([.ifNoneMatch: "\"x\",\t" + tag]) == .notModified)
        }
    }

    @Test func originalsAreTheScannedFiles_withRangesAndValidators() async throws {
        let served = try ServedCatalog(imported: 1)
        let bytes = try Data(contentsOf: served.photo("baseline.jpg"))
        let items = try served.catalog.items(order: .path)
        let jpeg = try #require(items.first { $0.format == "jpeg" })
        let imported = try #require(items.first { $0.isImported })
        try await served.test { client in
            let tag = try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.data == bytes)
                #expect(response.headers[.lastModified] != nil)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: "bytes=2-9"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 2-9/\(bytes.count)")
                #expect(response.data == bytes[2...9])
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: "bytes=-4"]) { response in
                #expect(response.data == bytes.suffix(4))
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get,
                                     headers: [.range: "bytes=\(bytes.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                let refused = try response.error
                #expect(refused.message.contains("outside"))
            }
            // An end at Int64.max is the end of the file; a changed file's If-Range gets it whole.
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get,
                                     headers: [.range: "bytes=1-9223372036854775807"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.data == bytes.dropFirst())
            }
            // Past Int64 too; the unit in any case; a suffix of no bytes is unsatisfiable.
            for range in ["bytes=1-99999999999999999999", "BYTES=1-"] {
                try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: range]) { response in
                    #expect(response.status == .partialContent, "\(range)")
                    #expect(response.data == bytes.dropFirst(), "\(range)")
                }
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: "bytes=-0"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: "bytes=+1-4"]) { response in
                #expect(response.status == .ok, "not digits: the header is ignored")
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get,
                                     headers: [.range: "bytes=2-9", .ifRange: "\"an-older-tag\""]) { response in
                #expect(response.status == .ok)
                #expect(response.data == bytes)
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get,
                                     headers: [.range: "bytes=2-9", .ifRange: tag]) { response in
                #expect(response.status == .partialContent)
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get, headers: [.range: "bytes=5000-"]) { response in
                #expect(response.headers[.contentRange] == "bytes */\(bytes.count)")
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(bytes.count))
                #expect(response.text.isEmpty)
            }
            try await client.execute(uri: "/api/items/\(imported.id)/original", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.message.contains("imported"))
            }
        }
        // A link swapped in at its path to a file the scan never saw, with the scanned size and
        // time (both can be made): neither the file nor a thumbnail of it is sent.
        let secret = served.folder.appendingPathComponent("secret.jpg")
        try bytes.write(to: secret)
        let scanned = try FileManager.default.attributesOfItem(atPath: served.photo("baseline.jpg").path)
        let touch = try Process.run(URL(fileURLWithPath: "/usr/bin/touch"), arguments: ["-r", served.photo("baseline.jpg").path, secret.path])
        touch.waitUntilExit() // the scanned file's times, to the nanosecond
        try #require(touch.terminationStatus == 0)
        try FileManager.default.moveItem(at: served.photo("baseline.jpg"), to: served.folder.appendingPathComponent("kept.jpg"))
        try FileManager.default.createSymbolicLink(at: served.photo("baseline.jpg"), withDestinationURL: secret)
        #expect((try FileManager.default.attributesOfItem(atPath: secret.path)[.size] as? Int) == scanned[.size] as? Int)
        try await served.test { client in
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get) { response in
                #expect(response.status == .notFound, "the link's file was sent")
            }
            try await client.execute(uri: "/api/items/\(jpeg.id)/thumbnail?size=64", method: .get) { response in
                #expect(response.status == .notFound, "a thumbnail of the link's file was sent")
            }
        }
        try FileManager.default.removeItem(at: served.photo("baseline.jpg"))
        try FileManager.default.moveItem(at: served.folder.appendingPathComponent("kept.jpg"), to: served.photo("baseline.jpg"))
        // Changed since the scan (same size, other bytes and time), then gone.
        var changed = bytes
        changed[changed.count - 3] ^= 0xFF
        try changed.write(to: served.photo("baseline.jpg"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: served.photo("baseline.jpg").path)
        try await served.test { client in
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.message.contains("changed since it was scanned"))
            }
        }
        try FileManager.default.removeItem(at: served.photo("baseline.jpg"))
        try await served.test { client in
            try await client.execute(uri: "/api/items/\(jpeg.id)/original", method: .get) { response in
                #expect(response.status == .notFound)
                let refused = try response.error
                #expect(refused.message.contains("gone"))
            }
        }
    }

    /// The catalog file replaced under the server (a backup moved into its place, or deleted):
    /// health and pages answer 503, rather than serve the old catalog, which nobody else sees.
    @Test func aCatalogFileReplacedUnderTheServer_is503_notTheOldCatalog() async throws {
        let served = try ServedCatalog()
        try await served.test { client in
            try await client.execute(uri: "/api/health", method: .get) { response in #expect(response.status == .ok) }
        }
        try FileManager.default.copyItem(atPath: served.path, toPath: served.path + ".copy")
        try #require(rename(served.path + ".copy", served.path) == 0)
        try await served.test { client in
            try await client.execute(uri: "/api/health", method: .get) { response in #expect(response.status == .serviceUnavailable) }
            try await client.execute(uri: "/api/page?width=375&cols=2", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    /// A file whose path is longer than the system takes in one call (PATH_MAX: folders nested
    /// deep, which the scan walks a folder at a time): its original and thumbnail are sent, as
    /// for any other file (both were 404, "gone", though the scan had stored it).
    @Test func aFileDeeperThanPathMax_isServed() async throws {
        let served = try ServedCatalog(images: [])
        let bytes = try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg"))
        var folder = open(served.folder.appendingPathComponent("photos").path, O_RDONLY | O_DIRECTORY)
        var path = served.folder.appendingPathComponent("photos").path
        let name = String(repeating: "d", count: 200)
        for _ in 0..<24 {
            try #require(mkdirat(folder, name, 0o755) == 0)
            let next = openat(folder, name, O_RDONLY | O_DIRECTORY)
            close(folder)
            folder = next
            path += "/" + name
        }
        let file = openat(folder, "deep.jpg", O_WRONLY | O_CREAT, 0o644)
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        close(folder)
        path += "/deep.jpg"
        try #require(path.utf8.count > 4_096)
        #expect(try served.catalog.scan([served.folder.appendingPathComponent("photos").path]).added == 1)
        let item = try #require(try served.catalog.items().first)
        #expect(String(decoding: item.key, as: UTF8.self) == path)
        try await served.test { client in
            try await client.execute(uri: "/api/items/\(item.id)/original", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(response.body.readableBytesView) == bytes)
            }
            try await client.execute(uri: "/api/items/\(item.id)/thumbnail?size=64", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// A file larger than the chunks it is streamed in: whole, and a range across chunks.
    @Test func aLargeOriginalIsStreamedWhole() async throws {
        let served = try ServedCatalog(images: [])
        var written = try Data(contentsOf: ServedCatalog.fixtures.appendingPathComponent("baseline.jpg"))
        written.append(Data((0..<(700 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })) // after the image's end
        try written.write(to: served.photo("large.jpg"))
        let bytes = written
        _ = try served.catalog.scan([served.photo("large.jpg").deletingLastPathComponent().path])
        let id = try #require(try served.catalog.items().first?.id)
        try await served.test { client in
            try await client.execute(uri: "/api/items/\(id)/original", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(bytes.count))
                #expect(response.data == bytes)
            }
            try await client.execute(uri: "/api/items/\(id)/original", method: .get, headers: [.range: "bytes=200000-600000"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.data == bytes[200_000...600_000])
            }
        }
    }
}
