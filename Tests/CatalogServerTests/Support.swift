import CatalogKit
import Foundation
@testable import CatalogServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// A catalog in a temporary folder, with real image files and imported rows.
final class ServedCatalog {
    let folder: URL
    let path: String
    let catalog: Catalog

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageProbeTests/Fixtures")

    init(images: [String] = ["baseline.jpg", "rgb.png"], imported: Int = 0) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-server-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        path = folder.appendingPathComponent("catalog.sqlite").path
        catalog = try Catalog.open(at: path)
        for name in images {
            try Data(contentsOf: Self.fixtures.appendingPathComponent(name)).write(to: photo(name))
        }
        if !images.isEmpty { _ = try catalog.scan([folder.appendingPathComponent("photos").path]) }
        if imported > 0 { _ = try catalog.importItems(Self.rows(imported)) }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Thumbnails go here, not to the user's cache.
    var thumbnailCache: String { folder.appendingPathComponent("thumbnails").path }

    func photo(_ name: String) -> URL { folder.appendingPathComponent("photos").appendingPathComponent(name) }

    static func rows(_ count: Int) -> [ImportRow] {
        (0..<count).map { index in
            ImportRow(line: index + 2, key: "pin-\(index)", width: 200 + (index * 37) % 900, height: 200 + (index * 53) % 1100,
                      date: String(format: "2023-%02d-%02dT10:00:00", 1 + index % 12, 1 + index % 28))
        }
    }

    /// Runs `body` against the routes through HummingbirdTesting's router client (no sockets),
    /// through `service` when given.
    func test(service: CatalogService? = nil, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = CatalogServer.application(catalog: catalog, options: .init(quiet: true, thumbnailCache: thumbnailCache), service: service)
        try await app.test(.router) { client in try await body(client) }
    }

    /// The routes' service for this catalog, for a test that looks into it; `storeLayout`
    /// stores the layouts it computes (the catalog's own when nil).
    func service(storeLayout: (@Sendable (ComputedLayout) throws -> Bool)? = nil, errorLog: Logger = Logger(label: "test")) -> CatalogService {
        CatalogService(catalog: catalog, thumbnailCache: ThumbnailCache(root: thumbnailCache), errorLog: errorLog,
                       storeLayout: storeLayout)
    }
}

/// What a `KeptLog` keeps.
final class KeptLines: Sendable {
    let lines = Mutex<[String]>([])
}

/// Keeps what is logged to it, for a test that reads the server's log.
struct KeptLog: LogHandler {
    let kept: KeptLines
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        kept.lines.withLock { $0.append("\(event.message)") }
    }
}

/// Waits until `condition` holds, checking it every few milliseconds; the test fails if it
/// does not within 30 seconds.
func waitUntil(_ what: String, _ condition: () throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("never came: \(what)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var data: Data { Data(body.readableBytesView) }

    var object: [String: Any] {
        get throws {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
    }

    /// The error body's message and parameter; fails the test if the body is not that shape.
    var error: (message: String, parameter: String?) {
        get throws {
            let error = try #require(try object["error"] as? [String: Any])
            #expect(Set(error.keys) == ["message", "parameter"])
            return (try #require(error["message"] as? String), error["parameter"] as? String)
        }
    }
}

extension HTTPField.Name {
    static let catalogGeneration = HTTPField.Name("X-Catalog-Generation")!
}
