// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Benchmarks live in their own package so the main build stays fast. Run in release mode:
// see ../BENCHMARKS.md for the commands and the figures.
//
// A package at a path is known by its folder's name: the checkout may be called main,
// catalog or anything else, so the name is read here rather than written down.
let main = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "catalog-benchmarks",
    dependencies: [.package(path: "../")],
    targets: [
        .executableTarget(
            name: "ProbeBenchmark",
            dependencies: [.product(name: "ImageProbe", package: main)]
        ),
        .target(name: "BenchmarkSupport"),
        .executableTarget(
            name: "ChangeBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "CatalogLayout", package: main)]
        ),
        .executableTarget(
            name: "LayoutBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "CatalogLayout", package: main)]
        ),
        .executableTarget(
            name: "SectionBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "CatalogLayout", package: main)]
        ),
        .executableTarget(
            name: "StyleBenchmark",
            dependencies: ["BenchmarkSupport", .product(name: "CatalogLayout", package: main)]
        ),
        .executableTarget(
            name: "ThumbnailBenchmark",
            dependencies: [.product(name: "Thumbnailer", package: main), .product(name: "ImageProbe", package: main)]
        ),
    ]
)
