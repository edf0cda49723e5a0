import CatalogKit
import Foundation
@testable import CatalogServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `/` and `/gallery/{version}/{file}`: the web gallery compiled into the binary.
@Suite struct GalleryRouteTests {
    @Test func theGalleryPageNamesThisBuildsAssets_andIsRevalidated() async throws {
        let served = try ServedCatalog(images: [], imported: 3)
        try await served.test { client in
            let tag = try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                let html = response.text
                #expect(html.contains("/gallery/\(GalleryRoutes.version)/main.js"))
                #expect(html.contains("/gallery/\(GalleryRoutes.version)/gallery.css"))
                #expect(!html.contains("{{"), "every placeholder is filled")
                // The configuration the page carries: every style /api/page takes, the thumbnail sizes.
                let start = try #require(html.range(of: #"id="catalog-configuration">"#)?.upperBound)
                let end = try #require(html.range(of: "</script>", range: start..<html.endIndex)?.lowerBound)
                let configuration = try #require(try JSONSerialization.jsonObject(with: Data(html[start..<end].utf8)) as? [String: Any])
                #expect(configuration["styles"] as? [String] == LayoutConfiguration.Style.allCases.map(\.rawValue))
                #expect(configuration["thumbnailSizes"] as? [Int] == ThumbnailCache.sizes)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/", method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
            }
        }
    }

    @Test(arguments: [("main.js", "text/javascript; charset=utf-8"), ("scroller.js", "text/javascript; charset=utf-8"),
                      ("gallery.css", "text/css; charset=utf-8"), ("icon.svg", "image/svg+xml")])
    func everyFileHasItsContentType_andIsImmutableUnderThisVersion(_ file: String, _ type: String) async throws {
        let served = try ServedCatalog(images: [], imported: 1)
        try await served.test { client in
            try await client.execute(uri: "/gallery/\(GalleryRoutes.version)/\(file)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == type)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.text == GalleryRoutes.files[file])
            }
            try await client.execute(uri: "/gallery/0123/\(file)", method: .get) { response in
                #expect(response.status == .ok, "an old page's URL still gets the file")
                #expect(response.headers[.cacheControl] == "no-cache")
            }
        }
    }

    /// Every module the gallery imports is served: a missing file would break the page in a way
    /// only a browser shows.
    @Test func everyModuleImportResolvesToAServedFile() throws {
        for (name, text) in GalleryRoutes.files where name.hasSuffix(".js") {
            for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                let quoted = try #require(line.split(separator: "'").dropFirst().first, "\(name): \(line)")
                #expect(quoted.hasPrefix("./"))
                #expect(GalleryRoutes.files[String(quoted.dropFirst(2))] != nil, "\(name) imports \(quoted)")
            }
        }
    }

    @Test func unknownFilesAre404_andOtherMethods405() async throws {
        let served = try ServedCatalog(images: [], imported: 1)
        try await served.test { client in
            for uri in ["/gallery/\(GalleryRoutes.version)/nope.js", "/gallery/\(GalleryRoutes.version)/index.html",
                        "/gallery/\(GalleryRoutes.version)/../openapi.yaml"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    let message = try response.error.message
                    #expect(!message.isEmpty)
                }
            }
            try await client.execute(uri: "/", method: .post) { response in
                #expect(response.status == .methodNotAllowed)
            }
        }
    }

    /// Page items carry what the gallery shows without asking for each item: an imported item's
    /// url and title, and the page the item count.
    @Test func pageItemsCarryURLAndTitle_andThePageItsItemCount() async throws {
        let served = try ServedCatalog(images: ["baseline.jpg"], imported: 0)
        _ = try served.catalog.importItems([
            ImportRow(line: 2, key: "pin-a", width: 300, height: 200, date: "2001-01-01T00:00:00", url: "https://example.com/a.jpg", title: "Lake \"Ohrid\""),
        ])
        try await served.test { client in
            try await client.execute(uri: "/api/page?width=375", method: .get) { response in
                let object = try response.object
                #expect(object["itemCount"] as? Int == 2)
                let items = try #require(object["items"] as? [[String: Any]])
                let pin = try #require(items.first { $0["path"] as? String == "pin-a" })
                #expect(pin["url"] as? String == "https://example.com/a.jpg")
                #expect(pin["title"] as? String == "Lake \"Ohrid\"")
                let file = try #require(items.first { ($0["path"] as? String)?.hasSuffix("baseline.jpg") == true })
                #expect(file["url"] is NSNull && file["title"] is NSNull)
            }
        }
    }
}
