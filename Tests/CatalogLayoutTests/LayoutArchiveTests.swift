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

    /// A layout as the code before the format version wrote it, byte for byte: two columns 46
    /// points wide (width 100, spacing 4, insets 2), windows of 64 points, three items.
    static let storedBeforeVersioning = LayoutArchive(
        header: [
            0x41, 0x54, 0x47, 0x4C, 0x41, 0x55, 0x54, 0x31, // "ATGLAUT1"
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x59, 0x40, // width 100
            0x02, //                                           2 columns
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x40, // column spacing 4
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x40, // row spacing 4
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // top inset 2
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // left inset 2
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // bottom inset 2
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // right inset 2
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x40, // window height 64
            0x03, //                                           3 items
            0x00, 0x00, 0x00, 0x00, 0x00, 0xC0, 0x5E, 0x40, // content height 123
            0x02, //                                           2 windows
        ],
        windows: [
            [
                0x02, //                                           2 columns
                0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // column 0: 2 items from y 2
                0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // item 0, id 7
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x37, 0x40, //       height 23
                0x02, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // item 0 + 2, id 9
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x57, 0x40, //       height 92
                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, // column 1: 1 item from y 2
                0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // item 1, id 8
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x47, 0x40, //       height 46
            ],
            [
                0x02, //                                           2 columns
                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3D, 0x40, // column 0: 1 item from y 29
                0x02, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // item 2, id 9
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x57, 0x40, //       height 92
                0x00, //                                           column 1: none
            ],
        ])

    @Test func whenALayoutWasStoredBeforeTheVersionByte_thenItReadsAsVersion1_andIsWrittenTheSame() throws {
        let stored = Self.storedBeforeVersioning
        let header = try LayoutArchiveHeader(bytes: stored.header)
        #expect(header.version == 1)
        #expect(header.geometry == (try ColumnGeometry(width: 100, columns: 2, columnSpacing: 4, rowSpacing: 4, insets: Insets(all: 2))))
        #expect((header.windowHeight, header.itemCount, header.contentHeight, header.windowCount) == (64, 3, 123, 2))
        let expected = [
            LayoutAttributes(index: 0, id: 7, frame: Rect(x: 2, y: 2, width: 46, height: 23), column: 0),
            LayoutAttributes(index: 1, id: 8, frame: Rect(x: 52, y: 2, width: 46, height: 46), column: 1),
            LayoutAttributes(index: 2, id: 9, frame: Rect(x: 2, y: 29, width: 46, height: 92), column: 0), // 2 + 23 + 4
        ]
        #expect(try header.decodeWindow(stored.windows[0]) == expected)
        #expect(try header.items(in: 64..<128, windows: [stored.windows[1]]) == [expected[2]])
        #expect(try PlacementTable(archive: stored).items(in: 0..<1000) == expected)
        let style = WaterfallLayout(width: 100, columns: 2, columnSpacing: 4, rowSpacing: 4, insets: Insets(all: 2))
        let items = [LayoutItem(id: 7, width: 46, height: 23), LayoutItem(id: 8, width: 46, height: 46), LayoutItem(id: 9, width: 23, height: 46)]
        #expect(try Layout(items: items, style: style, windowHeight: 64).table.archive() == stored, "today's writer writes the same bytes")
    }

    /// A writer writes the lowest version that can express its layout: 1 without sections,
    /// so a build that reads only version 1 keeps reading plain layouts.
    @Test func whenAPlainHeaderIsWrittenToday_thenItIsVersion1_andBeginsWithATGLAUT1() throws {
        let archive = try Layout(items: randomItems(50, seed: 1), style: WaterfallLayout(width: 375)).table.archive()
        #expect(LayoutArchive.formatVersion == 4)
        #expect(Array(archive.header.prefix(8)) == [0x41, 0x54, 0x47, 0x4C, 0x41, 0x55, 0x54, 0x31], "\"ATGLAUT1\": what stored catalogs begin with")
        #expect(try LayoutArchiveHeader(bytes: archive.header).version == 1)
        let sectioned = try Layout(items: randomItems(50, seed: 1), sections: [SectionStart(offset: 0, key: 1)],
                                   sectioning: Sectioning(headerHeight: 20), style: WaterfallLayout(width: 375)).table.archive()
        #expect(Array(sectioned.header.prefix(8)) == Array("ATGLAUT2".utf8))
    }

    @Test func whenTheVersionByteIsNewerThanThisBuildReads_thenUnsupportedArchiveVersion() throws {
        var newer = try Layout(items: randomItems(50, seed: 1), style: WaterfallLayout(width: 375)).table.archive()
        newer.header[7] = UInt8(ascii: "5")
        #expect(throws: LayoutError.unsupportedArchiveVersion(5)) { try LayoutArchiveHeader(bytes: newer.header) }
        #expect(throws: LayoutError.unsupportedArchiveVersion(5)) { try PlacementTable(archive: newer) }
        newer.header[7] = UInt8(ascii: "9")
        #expect(throws: LayoutError.unsupportedArchiveVersion(9)) { try LayoutArchiveHeader(bytes: newer.header) }
        #expect(throws: LayoutError.unsupportedArchiveVersion(5), "the version is checked before a body is read") {
            try LayoutArchiveHeader(bytes: Array("ATGLAUT5".utf8))
        }
        #expect(LayoutError.unsupportedArchiveVersion(5).description
            == "the stored layout was written in format 5; this version of catalog reads formats up to 4: it will be recomputed")
    }

    @Test func whenTheMagicOrTheVersionByteIsWrong_thenCorruptArchive() throws {
        let header = try Layout(items: randomItems(50, seed: 1), style: WaterfallLayout(width: 375)).table.archive().header
        for position in 0..<7 {
            var bytes = header
            bytes[position] ^= 0x20 // "A" becomes "a", and so on
            #expect(throws: LayoutError.corruptArchive("not a layout archive"), "byte \(position)") { try LayoutArchiveHeader(bytes: bytes) }
        }
        for versionByte: UInt8 in [UInt8(ascii: "0"), 0x01, 0x02] {
            var bytes = header
            bytes[7] = versionByte
            #expect(throws: LayoutError.corruptArchive("format version byte \(versionByte) is below \"1\"")) { try LayoutArchiveHeader(bytes: bytes) }
        }
        #expect(throws: LayoutError.corruptArchive("a value runs past the end")) { try LayoutArchiveHeader(bytes: Array("ATGLAUT".utf8)) }
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

    /// Packed windows are the windows one after another, and each window's index range is the
    /// smallest and largest index that decoding it gives (−1 for an empty window).
    @Test func packedWindowsHoldEveryWindow_withTheIndexRangesTheirItemsHave() throws {
        for (columns, windowHeight) in [(2, 64.0), (5, 300.0), (1, 2048.0)] {
            let table = try Layout(items: randomItems(800, seed: UInt64(columns)), style: WaterfallLayout(width: 375, columns: columns),
                                   windowHeight: windowHeight).table
            let packed = table.packedWindows()
            let header = try LayoutArchiveHeader(bytes: table.archiveHeader())
            #expect(packed.count == table.windowCount && packed.ends.last == packed.bytes.count)
            var empty = 0
            for window in 0..<packed.count {
                let indices = try header.decodeWindow(Array(packed.window(window))).map(\.index)
                #expect(packed.minIndices[window] == (indices.min() ?? -1) && packed.maxIndices[window] == (indices.max() ?? -1), "window \(window)")
                if indices.isEmpty { empty += 1 }
            }
            #expect(empty < packed.count)
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
