import CatalogLayout
import Testing

/// A stored layout is read back by the server from disk: whatever its bytes, decoding throws
/// ``LayoutError/corruptArchive(_:)`` or gives a table whose every query is safe. (Before these
/// checks, most damaged archives trapped: a Double too large for Int, an index out of range,
/// an allocation of terabytes.)
@Suite struct CorruptArchiveTests {
    /// splitmix64: the same mutations on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let items = (0..<80).map { LayoutItem(id: Int64($0), width: 100, height: Double(50 + ($0 * 37) % 300)) }
    static func keys(every run: Int64) -> [UInt64] { items.map { UInt64($0.id / run) } }

    static let more = (0..<7).map { LayoutItem(id: Int64(1_000 + $0), width: 100 + Double($0), height: 120) }

    /// One archive of each kind: columns, columns with sections and full-span items, justified
    /// rows with and without sections (the last row open), the carousel; and how the server
    /// extends a decoded table of that kind with new items.
    static func sources() throws -> [(kind: String, archive: LayoutArchive, extend: (any LayoutTable) throws(LayoutError) -> any LayoutTable)] {
        let waterfall = WaterfallLayout(width: 375, columns: 3), twoColumns = WaterfallLayout(width: 375, columns: 2)
        return [
            ("columns", try Layout(items: items, style: waterfall, windowHeight: 500).table.archive(), { table throws(LayoutError) in
                var layout = try Layout(table: table as! PlacementTable, style: waterfall)
                try layout.append(more)
                return layout.table
            }),
            ("sections", try Layout(items: items, sections: SectionStart.runs(of: keys(every: 17)),
                                    sectioning: Sectioning(headerHeight: 30, footerHeight: 10, spanEvery: 5),
                                    style: twoColumns, windowHeight: 1000).table.archive(), { table throws(LayoutError) in
                var layout = try Layout(table: table as! PlacementTable, style: twoColumns)
                try layout.append(more, sections: [SectionStart(offset: 0, key: 4), SectionStart(offset: 3, key: 5)])
                return layout.table
            }),
            ("rows", try RowTable(items: items, style: JustifiedLayout(width: 375), sections: SectionStart.runs(of: keys(every: 20)),
                                  sectioning: Sectioning(headerHeight: 20, footerHeight: 6), windowHeight: 500).archive(), { table throws(LayoutError) in
                var rows = table as! RowTable
                try rows.append(more, sections: [SectionStart(offset: 0, key: 3), SectionStart(offset: 3, key: 9)])
                return rows
            }),
            ("plain rows", try RowTable(items: Array(items.prefix(41)), style: JustifiedLayout(width: 375), windowHeight: 300).archive(),
             { table throws(LayoutError) in
                var rows = table as! RowTable
                try rows.append(more)
                return rows
            }),
            ("carousel", try CarouselTable(items: items, style: CarouselLayout(), windowHeight: 500).archive(), { table throws(LayoutError) in
                var carousel = table as! CarouselTable
                try carousel.append(more)
                return carousel
            }),
        ]
    }

    /// 1 to 4 bytes changed, in the header or in a window: a random byte, 0xFF (a varint that
    /// runs on), or eight bytes of a Double no layout has.
    static func damaged(_ archive: LayoutArchive, _ random: inout Random) -> LayoutArchive {
        func damage(_ bytes: inout [UInt8], from first: Int, _ random: inout Random) {
            guard bytes.count > first else { return }
            let at = first + random.below(bytes.count - first)
            switch random.below(8) {
            case 0: bytes[at] = 0xFF
            case 1 where bytes.count - at >= 8:
                let values: [Double] = [.nan, .infinity, -1, 1e-300, 1e300, 0, 3e9, 2.5]
                let bits = values[random.below(values.count)].bitPattern
                for byte in 0..<8 { bytes[at + byte] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(byte))) }
            default: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        var archive = archive
        for _ in 0...random.below(4) {
            if archive.windows.isEmpty || random.below(3) == 0 {
                damage(&archive.header, from: 8, &random) // past the magic and the version
            } else {
                damage(&archive.windows[random.below(archive.windows.count)], from: 0, &random)
            }
        }
        return archive
    }

    /// Every query of whatever `archive` decodes into, and `extend` on it; whether it decoded.
    static func exercise(_ archive: LayoutArchive, extend: (any LayoutTable) throws(LayoutError) -> any LayoutTable, _ comment: Comment) -> Bool {
        if let header = try? LayoutArchiveHeader(bytes: archive.header) {
            // The server's path: the header alone, then the windows a band needs.
            for window in archive.windows { _ = try? header.decodeWindow(window) }
            for band in [0.0..<700, -Double.infinity..<Double.infinity, 1e300..<2e300] {
                let needed = header.windows(for: band).map { Array($0) } ?? []
                #expect(needed.allSatisfy { archive.windows.indices.contains($0) }, comment)
                _ = try? header.items(in: band, windows: needed.filter { archive.windows.indices.contains($0) }.map { archive.windows[$0] },
                                      pinningHeaders: true)
            }
            _ = header.sections?.infos(itemCount: header.itemCount)
        }
        guard let table = try? layoutTable(from: archive) else { return false }
        query(table, comment)
        let written = table.archive()
        do {
            #expect(try layoutTable(from: written).archive() == written, "the archive a decoded table writes reads back: \(comment)")
        } catch {
            Issue.record("the archive a decoded table writes does not read back (\(error)): \(comment)")
        }
        // Extended as a stored layout is when items were appended (a refusal is an answer too).
        if let extended = try? extend(table) { query(extended, comment) }
        return true
    }

    static func query(_ table: any LayoutTable, _ comment: Comment) {
        let length = table.scrollLength
        for band in [-Double.infinity..<Double.infinity, 0..<length, length / 2..<(length / 2 + 700), 1e300..<2e300] {
            _ = table.items(in: band, pinningHeaders: true)
            _ = table.items(in: band, pinningHeaders: false)
        }
        #expect((0..<table.count).allSatisfy { table.attributes(at: $0).index == $0 }, comment)
        _ = table.sectionInfos
    }

    @Test func whenBytesOfAnArchiveOfAnyKindAreDamaged_thenItThrowsOrDecodesIntoATableWhoseQueriesAllWork() throws {
        var random = Random(state: 20_240_613)
        for (kind, archive, extend) in try Self.sources() {
            #expect(Self.exercise(archive, extend: extend, "\(kind), undamaged"), "an undamaged \(kind) archive decodes")
            var decoded = 0
            for attempt in 0..<300 {
                if Self.exercise(Self.damaged(archive, &random), extend: extend, "\(kind), attempt \(attempt)") { decoded += 1 }
            }
            #expect(decoded < 300, "\(kind): damage is noticed")
            #expect(decoded > 0, "\(kind): damage that leaves a layout (an id, say) decodes, and its table was queried")
        }
    }

    /// A full-span item kept in four windows, its id damaged in one of them, and a header's
    /// height damaged where it is placed: each decoded into a table that answered one thing to
    /// a query and wrote another into its archive (or drew pinned headers at another height).
    @Test func whenAPlacementKeptInSeveralWindowsIsDamagedInOne_orAHeaderIsNotItsSections_thenCorruptArchive() throws {
        let items = (0..<40).map { LayoutItem(id: Int64($0 + 1), width: 100, height: 300) }
        let layout = try Layout(items: items, sections: [SectionStart(offset: 0, key: 1)], sectioning: Sectioning(headerHeight: 30, spanEvery: 5),
                                style: GridLayout(width: 400, columns: 3), windowHeight: 500)
        let archive = layout.table.archive()
        _ = try PlacementTable(archive: archive)
        func bytes(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        func replacing(_ old: UInt64, with new: UInt64, inWindow window: Int) -> LayoutArchive {
            var damaged = archive
            let (from, to) = (bytes(old), bytes(new))
            let at = damaged.windows[window].indices.first { damaged.windows[window][$0...].starts(with: from) }!
            damaged.windows[window].replaceSubrange(at..<(at + 8), with: to)
            return damaged
        }
        let holding = archive.windows.indices.filter { window in archive.windows[window].indices.contains { archive.windows[window][$0...].starts(with: bytes(11)) } }
        try #require(holding.count > 1, "item 10 spans, in several windows")
        #expect(throws: LayoutError.corruptArchive("spanning cell 10 differs between two windows")) {
            try PlacementTable(archive: replacing(11, with: 999, inWindow: holding.last!))
        }
        let header = try #require(archive.windows.indices.first { window in
            archive.windows[window].indices.contains { archive.windows[window][$0...].starts(with: bytes(30.0.bitPattern)) } })
        #expect(throws: LayoutError.corruptArchive("the header of section 0 is not the one its section has")) {
            try PlacementTable(archive: replacing(30.0.bitPattern, with: 31.5.bitPattern, inWindow: header))
        }
    }

    /// The tester's shortest case: a window height of 1e-300 (it is positive) made some 10^303
    /// windows of a layout 1,785 points tall, and the table trapped converting that to Int.
    @Test func whenAColumnArchivesWindowHeightIsTiny_thenCorruptArchive_notATrap() throws {
        var archive = try Layout(items: Array(Self.items.prefix(10)), style: WaterfallLayout(width: 375, columns: 2)).table.archive()
        let offset = 7 + 1 + 8 + 1 + 8 + 8 + 32 // magic, version, width, column count, spacings, insets
        let bits = (1e-300).bitPattern
        for byte in 0..<8 { archive.header[offset + byte] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(byte))) }
        let error = #expect(throws: LayoutError.self) { try layoutTable(from: archive) }
        #expect(error == .corruptArchive("content 1785.45 long does not fit in 1 windows of 1e-300"))
    }

    /// An item count the windows cannot hold (2³¹ − 2 items in a few hundred bytes) is refused
    /// before anything is sized by it (it asked for 137 GB).
    @Test func whenAHeaderCountsMoreItemsThanItsWindowsHold_thenCorruptArchive_beforeAllocating() throws {
        var archive = try Layout(items: Array(Self.items.prefix(10)), style: WaterfallLayout(width: 375, columns: 2)).table.archive()
        let countOffset = 7 + 1 + 8 + 1 + 8 + 8 + 32 + 8
        #expect(archive.header[countOffset] == 10, "a one-byte varint")
        var count = Int(Int32.max) - 1
        var varint: [UInt8] = []
        while count >= 0x80 { varint.append(UInt8(count & 0x7F) | 0x80); count >>= 7 }
        varint.append(UInt8(count))
        archive.header.replaceSubrange(countOffset...countOffset, with: varint)
        #expect(try LayoutArchiveHeader(bytes: archive.header).itemCount == Int(Int32.max) - 1, "the header alone reads")
        let bytes = archive.windows.reduce(0) { $0 + $1.count }
        #expect(throws: LayoutError.corruptArchive("\(Int(Int32.max) - 1) items cannot fit in \(bytes) bytes of windows")) {
            try layoutTable(from: archive)
        }
    }

    /// Parameters no style accepts are a damaged archive too, as the header's documentation
    /// says, not the error a style would give (`invalidWidth`).
    @Test func whenAHeaderHoldsParametersNoStyleAccepts_thenCorruptArchive() throws {
        var header = try Layout(items: Array(Self.items.prefix(10)), style: WaterfallLayout(width: 375, columns: 2)).table.archiveHeader()
        for byte in 8..<16 { header[byte] = 0 } // width 0
        #expect(throws: LayoutError.corruptArchive("geometry: width must be a positive number of points, got 0.0")) {
            try LayoutArchiveHeader(bytes: header)
        }
    }

    /// A scaled size that underflows to 0 (an item 10^600 times wider than tall) is refused in
    /// every style, as one that overflows is: before, the engine placed a frame 0 points tall
    /// (or wide), which every band holding its edge then returned.
    @Test func whenAnItemsScaledSizeFallsToZero_thenItIsRefused() throws {
        let flat = LayoutItem(id: 1, width: 1e300, height: 1e-300)
        let sliver = LayoutItem(id: 1, width: 1e-300, height: 1e300)
        let refused = { (item: LayoutItem) in LayoutError.invalidItemSize(index: 1, size: item.size) }
        let normal = LayoutItem(id: 2, width: 10, height: 10)
        #expect(throws: refused(flat)) { try Layout(items: [normal, flat], style: WaterfallLayout(width: 375, columns: 1)) }
        // With sections: a cell, and an item across the width (every second one here).
        #expect(throws: refused(flat)) {
            try Layout(items: [normal, flat], sections: [SectionStart(offset: 0, key: 1)], sectioning: Sectioning(headerHeight: 20),
                       style: WaterfallLayout(width: 375, columns: 2))
        }
        for position in 1...2 { // one of the two is an item across the width
            var items = [normal, normal, normal]
            items[position] = flat
            #expect(throws: LayoutError.invalidItemSize(index: position, size: flat.size)) {
                try Layout(items: items, sections: [SectionStart(offset: 0, key: 1)],
                           sectioning: Sectioning(headerHeight: 20, spanEvery: 2), style: WaterfallLayout(width: 375, columns: 2))
            }
        }
        #expect(throws: refused(sliver)) { try RowTable(items: [normal, sliver], style: JustifiedLayout(width: 375)) }
        #expect(throws: refused(sliver)) { try CarouselTable(items: [normal, sliver], style: CarouselLayout()) }
        #expect(refused(flat).description.contains("its scaled size is zero or not a finite number"))
        // An item whose extra height (a caption) keeps it above zero is placed.
        let captioned = try Layout(items: [normal, flat], style: WaterfallLayout(width: 375, columns: 1, extraHeight: 20))
        #expect(captioned.attributes(at: 1).frame.height == 20)
    }

    /// Without items the content is the insets alone, taller here than a window, and there is no
    /// window: the checks that windows cover the content leave such a layout readable.
    @Test func whenALayoutHasNoItems_thenItsArchiveReadsBack_whateverItsInsets() throws {
        let insets = Insets(all: 50)
        let archives = [
            try Layout(items: [], style: WaterfallLayout(width: 375, insets: insets), windowHeight: 10).table.archive(),
            try Layout(items: [], sections: [], sectioning: Sectioning(headerHeight: 20), style: GridLayout(width: 375, insets: insets),
                       windowHeight: 10).table.archive(),
            try RowTable(items: [], style: JustifiedLayout(width: 375, insets: insets), windowHeight: 10).archive(),
            try RowTable(items: [], style: JustifiedLayout(width: 375, insets: insets), sections: [], sectioning: Sectioning(),
                         windowHeight: 10).archive(),
            try CarouselTable(items: [], style: CarouselLayout(insets: insets), windowHeight: 10).archive(),
        ]
        for archive in archives {
            let table = try layoutTable(from: archive)
            #expect(table.count == 0 && table.windowCount == 0 && table.scrollLength == 100)
            #expect(table.archive() == archive)
        }
    }
}
