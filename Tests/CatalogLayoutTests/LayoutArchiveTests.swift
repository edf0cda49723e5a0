import CatalogLayout
import PropertyBased
import Testing

@Suite struct LayoutArchiveTests {
    func randomItems(_ count: Int, seed: UInt64) -> [LayoutItem] {
        var state = seed
        func next() -> Double { // splitmix64: reproducible sizes without Foundation
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        return (0..<count).map { LayoutItem(id: Int64(1_000_000 + $0 * 3), width: 200 + next() * 3800, height: 200 + next() * 3800) }
    }

    @Test func archiveRoundTripsExactly_andPagesDecodeFromTheirWindowsAlone() throws {
        for (columns, direction) in [(2, RenderDirection.shortestFirst), (3, .leftToRight), (5, .rightToLeft), (1, .shortestFirst)] {
            let layout = try Layout(items: randomItems(3000, seed: UInt64(columns)), style: WaterfallLayout(width: 375, columns: columns, direction: direction))
            let archive = layout.table.archive()
            let decoded = try PlacementTable(archive: archive)
            #expect(decoded.count == layout.count)
            #expect(decoded.contentHeight == layout.contentHeight)
            #expect((0..<layout.count).allSatisfy { decoded.attributes(at: $0) == layout.attributes(at: $0) }, "bit-identical frames")
            #expect(decoded.archive() == archive)
            let header = try LayoutArchiveHeader(bytes: archive.header)
            #expect(header.itemCount == 3000)
            for y in stride(from: -100.0, to: layout.contentHeight + 900, by: 997) {
                let band = y..<(y + 812)
                guard let needed = header.windows(for: band) else {
                    #expect(layout.items(in: band).isEmpty)
                    continue
                }
                #expect(needed.count <= 2, "an 812-point band needs at most two 2048-point windows")
                let page = try header.items(in: band, windows: needed.map { archive.windows[$0] })
                #expect(page == layout.items(in: band))
            }
        }
    }

    @Test func serializedFormCostsAtMost32BytesPerItem() throws {
        for columns in [1, 2, 4, 6] {
            let layout = try Layout(items: randomItems(20_000, seed: 9), style: WaterfallLayout(width: 375, columns: columns))
            let perItem = Double(layout.table.archive().byteCount) / Double(layout.count)
            #expect(perItem <= 32, "\(columns) columns: \(perItem) bytes per item")
        }
    }

    @Test func corruptArchivesAreRefused_notTrusted() throws {
        let archive = try Layout(items: randomItems(50, seed: 1), style: WaterfallLayout(width: 375)).table.archive()
        #expect(throws: LayoutError.self) { try LayoutArchiveHeader(bytes: Array(archive.header.dropLast())) }
        #expect(throws: LayoutError.self) { try LayoutArchiveHeader(bytes: [UInt8](repeating: 0, count: 100)) }
        let header = try LayoutArchiveHeader(bytes: archive.header)
        #expect(throws: LayoutError.self) { try header.decodeWindow(Array(archive.windows[0].dropLast(3))) }
        #expect(throws: LayoutError.self) { try header.decodeWindow(archive.windows[0] + [0]) }
        #expect(throws: LayoutError.self) { try PlacementTable(archive: LayoutArchive(header: archive.header, windows: Array(archive.windows.dropLast()))) }
    }
}
