// swift-tools-version: 6.1
import PackageDescription

// Module map and arrows: ../shared/STYLE.md. CatalogLayout imports nothing; CImageProbe and
// CThumbnail are the only code that touches libjpeg/libpng/libwebp/giflib/libheif, each imported by one Swift module
// (ImageProbe, Thumbnailer). CatalogModel holds the
// catalog's values and the store seam (no SQL, no GRDB); CatalogStore is its SQLite side, the
// only module that imports GRDB. CatalogKit is the one front door (`Catalog`): the executable
// and the library's users import it alone.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "catalog",
    products: [
        .library(name: "CatalogLayout", targets: ["CatalogLayout"]),
        .library(name: "ImageProbe", targets: ["ImageProbe"]),
        .library(name: "Thumbnailer", targets: ["Thumbnailer"]),
        .library(name: "Catalog", targets: ["CatalogKit"]),
        .executable(name: "catalog", targets: ["catalog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // No import at all, but its rounding calls libm's floor, ceil, round...: a program that
        // imports only CatalogLayout links on Linux too.
        .target(name: "CatalogLayout", swiftSettings: swiftSettings, linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(
            name: "CImageProbe",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("webp"), .linkedLibrary("gif"),
                             .linkedLibrary("heif")]
        ),
        .target(name: "ImageProbe", dependencies: ["CImageProbe"], swiftSettings: swiftSettings),
        // Thumbnails: CThumbnail decodes (DCT-scaled JPEG, PNG), reduces, orients and encodes;
        // only Thumbnailer imports it.
        .target(
            name: "CThumbnail",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"),
                             .linkedLibrary("gif"), .linkedLibrary("heif"), .linkedLibrary("m")]
        ),
        .target(name: "Thumbnailer", dependencies: ["CThumbnail"], swiftSettings: swiftSettings),
        // Migrations/NNNN_description.sql, embedded into CatalogStore at build time, so an
        // installed `catalog` binary carries its schema with it.
        .executableTarget(name: "MigrationEmbedder", path: "Tools/MigrationEmbedder"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["MigrationEmbedder"]),
        .target(name: "CatalogModel", swiftSettings: swiftSettings),
        .target(
            name: "CatalogStore",
            dependencies: ["CatalogModel", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),
        // The same store on PostgreSQL (`--db postgres://...`): Migrations/postgres/*.sql, embedded
        // by the same plugin; the only module that imports PostgresNIO.
        .target(
            name: "CatalogStorePostgres",
            dependencies: [
                "CatalogModel", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "CatalogKit",
            dependencies: ["CatalogLayout", "CatalogModel", "CatalogStore", "CatalogStorePostgres", "ImageProbe", "Thumbnailer"],
            swiftSettings: swiftSettings
        ),
        // The HTTP service: routes, errors, the OpenAPI document (Assets/, embedded at build time).
        .target(
            name: "CatalogServer",
            dependencies: [
                "CatalogKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // HTTP parts as the connection guard's observer and HTTP1Conformance see them (Connections/).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // SHA-256 and HMAC for access tokens and session cookies (Access/).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedAssets"]
        ),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["MigrationEmbedder"]),
        .executableTarget(
            name: "catalog",
            dependencies: ["CatalogKit", "CatalogServer", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ImageProbeTests",
            dependencies: ["ImageProbe"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ThumbnailerTests",
            dependencies: ["Thumbnailer"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogStoreTests",
            dependencies: ["CatalogStore", "CatalogModel", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogKitTests",
            dependencies: ["CatalogKit", "CatalogModel", "CatalogStore", "CatalogStorePostgres", "ImageProbe", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: [
                "CatalogServer", "CatalogKit", "CatalogStore", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogLayoutTests",
            dependencies: ["CatalogLayout", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: swiftSettings
        ),
    ]
)
