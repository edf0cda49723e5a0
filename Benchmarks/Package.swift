// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so the main build stays fast. Run in release mode:
// see ../BENCHMARKS.md for the commands and the figures.
let package = Package(
    name: "catalog-benchmarks",
    dependencies: [.package(path: "../")],
    targets: [
        .executableTarget(
            name: "ProbeBenchmark",
            dependencies: [.product(name: "ImageProbe", package: "main")]
        ),
        .executableTarget(
            name: "LayoutBenchmark",
            dependencies: [.product(name: "CatalogLayout", package: "main")]
        ),
    ]
)
