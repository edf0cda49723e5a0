import CatalogKit
import Foundation
import Testing

/// The layouts CatalogKit computes ask the kernel for huge pages for their large arrays: the
/// memory of such an array carries the `hg` flag in /proc/self/smaps (set by
/// madvise(MADV_HUGEPAGE), whether or not the kernel then finds huge pages to give).
@Suite struct HugePagesTests {
    /// Linux with transparent huge pages built into the kernel, and not turned off for this run
    /// (`CATALOG_HUGE_PAGES=0`).
    static let kernelHasThem = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        && !HugePages.isTurnedOff(by: ProcessInfo.processInfo.environment["CATALOG_HUGE_PAGES"])

    /// The VmFlags of the mapping that holds `address`, from /proc/self/smaps.
    static func flags(at address: Int) throws -> [Substring] {
        // Read to the end: a /proc file has no size to read up to.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { Int($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return Array(fields.dropFirst())
            }
        }
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: "no mapping holds \(address)"])
    }

    /// The address of `array`'s middle element: the advice covers the array's whole pages, so
    /// its first page, shared with the allocator's header, may stay out.
    static func middle<T>(_ array: [T]) -> Int {
        array.withUnsafeBufferPointer { buffer in Int(bitPattern: buffer.baseAddress! + buffer.count / 2) }
    }

    /// A table's arrays of 8 bytes an item, each by an address inside it.
    static func arrays(of table: PlacementTable) -> [(name: String, address: Int)] {
        [("ids", middle(table.ids)), ("ys", middle(table.ys)), ("heights", middle(table.heights))]
    }

    /// 4,200,000 items: the arrays of 8 bytes an item are 33.6 MB, past the engine's 4 MiB and
    /// past the 32 MiB from which glibc always maps new memory. An array of this test never
    /// lands where another test's advised array was (heap memory handed out again keeps its
    /// flag), so only this layout's own advice can mark it.
    static let items: [LayoutItem] = (0..<4_200_000).map { (index: Int) -> LayoutItem in
        LayoutItem(id: Int64(index * 3 + 1), width: 300, height: Double(100 + index % 500))
    }

    @Test(.enabled(if: kernelHasThem))
    func aLayoutComputedInPiecesAsksForHugePagesForItsLargeArrays() throws {
        #expect(HugePages.installed) // as every Catalog reads it when it is made
        let c = LayoutConfiguration(width: 375)
        // As the pager computes a new configuration: room reserved for all, then pieces.
        let table = try #require(try LayoutPiecesTests.compute(c, Self.items, runs: [], pieces: [4096, 4096], reserving: true) as? PlacementTable)
        #expect(table.count == Self.items.count)
        for (name, address) in Self.arrays(of: table) {
            let flags = try Self.flags(at: address)
            #expect(flags.contains("hg"), "\(name) is not advised: \(flags.joined(separator: " ")) at \(String(address, radix: 16))")
        }
    }

    @Test(.enabled(if: kernelHasThem))
    func aLayoutOfAllItsItemsAtOnceAsksToo_andIsTheSameLayout() throws {
        _ = HugePages.installed
        let layout = try Layout(items: Self.items, style: WaterfallLayout(width: 375, columns: 2))
        for (name, address) in Self.arrays(of: layout.table) {
            let flags = try Self.flags(at: address)
            #expect(flags.contains("hg"), "\(name) is not advised: \(flags.joined(separator: " ")) at \(String(address, radix: 16))")
        }
        // The advice changes where the arrays live, not what they hold.
        let pieced = try #require(try LayoutPiecesTests.compute(LayoutConfiguration(width: 375), Self.items, runs: [], pieces: [4096],
                                                                reserving: true) as? PlacementTable)
        #expect(pieced.contentHeight == layout.contentHeight)
        #expect(stride(from: 0, to: Self.items.count, by: 4999).allSatisfy { pieced.attributes(at: $0) == layout.attributes(at: $0) })
    }

    /// Justified rows and the carousel, computed from all their items at once, grow their item
    /// arrays into advised memory too.
    @Test(.enabled(if: kernelHasThem))
    func rowsAndTheCarouselComputedAtOnceAskToo() throws {
        _ = HugePages.installed
        let rows = try RowTable(items: Self.items, style: JustifiedLayout(width: 1024))
        let carousel = try CarouselTable(items: Self.items, style: CarouselLayout())
        for (name, address) in [("rows' ids", Self.middle(rows.ids)), ("rows' aspects", Self.middle(rows.aspects)),
                                ("carousel's ids", Self.middle(carousel.ids)), ("carousel's xs", Self.middle(carousel.xs))] {
            let flags = try Self.flags(at: address)
            #expect(flags.contains("hg"), "\(name) is not advised: \(flags.joined(separator: " "))")
        }
    }

    /// A layout extended past its arrays' room grows them into advised memory too (as a stored
    /// layout is extended after an import).
    @Test(.enabled(if: kernelHasThem))
    func aLayoutExtendedPastItsRoomAsksForItsNewArrays() throws {
        _ = HugePages.installed
        var layout = try Layout(items: Array(Self.items.prefix(1000)), style: WaterfallLayout(width: 375, columns: 2))
        try layout.append(Array(Self.items.dropFirst(1000)))
        #expect(layout.count == Self.items.count)
        for (name, address) in Self.arrays(of: layout.table) {
            let flags = try Self.flags(at: address)
            #expect(flags.contains("hg"), "\(name) is not advised: \(flags.joined(separator: " "))")
        }
    }
}
