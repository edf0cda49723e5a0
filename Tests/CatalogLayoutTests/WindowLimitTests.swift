import CatalogLayout
import Testing

/// A layout whose content would need more pagination windows than its items may have (four
/// starts an item, or 65,536) is refused before it takes the memory, in every style, and
/// the table is left as it was. One window a point here, so that a few items reach the limit.
@Suite struct WindowLimitTests {
    static let normal: [LayoutItem] = (0..<100).map { (index: Int) -> LayoutItem in
        LayoutItem(id: Int64(index), width: Double(100 + index % 37), height: Double(100 + index % 53))
    }
    /// 20,000 times as tall as wide: 3.5 million points in a column 175.5 points wide.
    static let strip = LayoutItem(id: 999, width: 1, height: 20_000)

    @Test func aWaterfallRefusesTheItemThatReachesPastTheLimit_andStaysAsItWas() throws {
        let style = WaterfallLayout(width: 375, columns: 2)
        var layout = try Layout(items: Self.normal, style: style, windowHeight: 1)
        let before = layout
        var batch: [LayoutItem] = Self.normal.map { (item: LayoutItem) -> LayoutItem in
            LayoutItem(id: item.id + 100, width: item.size.width, height: item.size.height)
        }
        batch[50] = Self.strip
        #expect(throws: LayoutError.tooManyWindows(limit: 65_536 / 2, windowHeight: 1)) { try layout.append(batch) }
        let unchanged = layout.archive == before.archive && layout.table.windowStarts == before.table.windowStarts
        #expect(unchanged, "the layout as before the refused append") // a Bool: a failure does not print two archives
        batch.remove(at: 50)
        try layout.append(batch)
        let whole = try Layout(items: Self.normal + batch, style: style, windowHeight: 1)
        let same = layout.archive == whole.archive
        #expect(same)
        // A size that cannot give a height is still that, not a window count.
        #expect(throws: LayoutError.invalidItemSize(index: 199, size: Size(width: 0, height: 5))) {
            try layout.append([LayoutItem(id: 7, width: 0, height: 5)])
        }
        // The same item in a layout of larger windows fits.
        _ = try Layout(items: Self.normal + [Self.strip], style: style, windowHeight: 128)
    }

    /// An insert or a replacement is held to the bound a layout of its items is laid out under,
    /// whether the new item itself reaches past it or the items after it, moved down, do. The
    /// layout is left as it was. Before, edits were not bounded: one item 1e9 times as tall as
    /// wide took gigabytes of windows. A removal is still never refused.
    @Test func anEditThatReachesPastTheLimitIsRefused_andTheLayoutStaysAsItWas() throws {
        let style = WaterfallLayout(width: 375, columns: 1)
        var layout = try Layout(items: Self.normal, style: style, windowHeight: 1, checkpointInterval: 16)
        let before = layout
        let limit = LayoutError.tooManyWindows(limit: 65_536, windowHeight: 1)
        let columnWidth = layout.attributes(at: 0).frame.width
        #expect(layout.contentHeight < 50_000, "about 375 points an item, in one column of windows a point tall")
        // Alone it fits under 65,536 points; with the 97 items after it moved down, it does not.
        let pushing = LayoutItem(id: 500, width: columnWidth, height: 65_536 - layout.contentHeight / 2)
        _ = try Layout(items: [pushing], style: style, windowHeight: 1)
        let refusals: [(String, (inout Layout<WaterfallLayout>) throws -> Void)] = [
            ("an insert whose tail reaches too far", { try $0.insert([pushing], at: 3) }),
            ("an insert that reaches too far itself", { try $0.insert([Self.strip], at: 3) }),
            ("a replacement whose tail reaches too far", { try $0.replace(at: 3, with: pushing) }),
            ("a replacement that reaches too far itself", { try $0.replace(at: 3, with: Self.strip) }),
        ]
        for (name, edit) in refusals {
            #expect(throws: limit, "\(name)") { try edit(&layout) }
            let unchanged = layout.archive == before.archive && layout.table.windowStarts == before.table.windowStarts
                && (0..<layout.count).allSatisfy { layout.attributes(at: $0) == before.attributes(at: $0) }
            #expect(unchanged, "the layout as before \(name)")
        }
        // What a full layout of the same items would take, an edit takes, and equals it.
        let small = LayoutItem(id: 501, width: 100, height: 120)
        try layout.insert([small], at: 3)
        try layout.remove(0..<2)
        var items = Self.normal
        items.insert(small, at: 3)
        items.removeSubrange(0..<2)
        let whole = try Layout(items: items, style: style, windowHeight: 1, checkpointInterval: 16)
        let same = layout.archive == whole.archive
        #expect(same)
    }

    @Test func sectionsRefuseACellOrAHeaderPastTheLimit_andStayAsTheyWere() throws {
        let style = WaterfallLayout(width: 375, columns: 2)
        let starts = [SectionStart(offset: 0, key: 1), SectionStart(offset: 60, key: 2)]
        let limit = LayoutError.tooManyWindows(limit: 65_536 / 3, windowHeight: 1) // two columns and the spanning list
        var layout = try Layout(items: Self.normal, sections: starts, sectioning: Sectioning(headerHeight: 10), style: style, windowHeight: 1)
        let (archive, windowStarts) = (layout.archive, layout.table.windowStarts)
        #expect(throws: limit) { try layout.append([Self.normal[0], Self.strip], sections: [SectionStart(offset: 0, key: 3)]) }
        let unchanged = layout.archive == archive && layout.table.windowStarts == windowStarts
        #expect(unchanged, "the layout as before the refused append")
        // Headers three million points tall: the second section's first item lies past the limit.
        #expect(throws: limit) {
            _ = try Layout(items: Self.normal, sections: starts, sectioning: Sectioning(headerHeight: 3_000_000), style: style, windowHeight: 1)
        }
    }

    @Test func justifiedRowsRefuseWhatReachesPastTheLimit_andTakeWhatALooseBoundDoubted() throws {
        // A strip alone would be millions of points tall, so its row stays unfinished and ends
        // at the target, 20,000 points: ten sections of a strip each reach 200,000 points, past
        // 65,536 windows of one point. (A normal item here is a row of its own, about 300.)
        let style = JustifiedLayout(width: 375, rowHeight: 20_000)
        let keys: [UInt64] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
        var rows = try RowTable(items: Array(Self.normal.prefix(10)), style: style, sections: SectionStart.runs(of: keys),
                                sectioning: Sectioning(), windowHeight: 1)
        let before = rows.archive()
        let alone = (0..<10).map { SectionStart(offset: $0, key: UInt64(2 + $0)) }
        #expect(throws: LayoutError.tooManyWindows(limit: 65_536, windowHeight: 1)) {
            try rows.append((0..<10).map { LayoutItem(id: Int64(500 + $0), width: 1, height: 20_000) }, sections: alone)
        }
        let unchanged = rows.archive() == before && rows.count == 10
        #expect(unchanged, "the rows as before the refused append")
        // Two strips join the open row: the bound taken before the flow (each strip's row up to
        // twice the target) says too far, the flow itself fits, and the append is taken.
        try rows.append([Self.strip, LayoutItem(id: 998, width: 1, height: 20_000)])
        #expect(rows.count == 12 && rows.contentHeight < 65_536)
    }

    @Test func theCarouselRefusesItemsThatReachPastTheLimit() throws {
        var row = try CarouselTable(items: Array(Self.normal.prefix(10)), style: CarouselLayout(itemHeight: 100), windowHeight: 1)
        let before = row.archive()
        let panorama = LayoutItem(id: 998, width: 50_000, height: 1) // 5 million points wide
        #expect(throws: LayoutError.tooManyWindows(limit: 65_536, windowHeight: 1, carousel: true)) { try row.append([panorama]) }
        let unchanged = row.archive() == before && row.count == 10
        #expect(unchanged, "the carousel as before the refused append")
    }

    /// The bound counts the items a layout computed in pieces was reserved for, exactly: not
    /// the arrays' capacity, which the allocator rounds up (a computation that reserved and one
    /// that did not must refuse the same layouts: the command line and the server did not).
    /// One window a point: these items reach past it, and the refusal says the bound.
    @Test(arguments: ["waterfall", "justified", "carousel"])
    func theBoundOfALayoutComputedInPiecesIsItsItemsExactly(_ style: String) throws {
        let count = 20_001 // past 65,536 / 4, in arrays of 160,008 bytes, which malloc rounds up to whole pages
        let items = (0..<count).map { LayoutItem(id: Int64($0), width: 1, height: 1) }
        switch style {
        case "waterfall":
            var layout = try Layout(items: [], style: WaterfallLayout(width: 375, columns: 2), windowHeight: 1)
            layout.reserveCapacity(count)
            #expect(throws: LayoutError.tooManyWindows(limit: 4 * count / 2, windowHeight: 1)) { try layout.append(items) }
        case "justified":
            var rows = try RowTable(style: JustifiedLayout(width: 375, rowHeight: 100), windowHeight: 1)
            rows.reserveCapacity(count)
            #expect(throws: LayoutError.tooManyWindows(limit: 4 * count, windowHeight: 1)) { try rows.append(items) }
        default:
            var row = try CarouselTable(style: CarouselLayout(itemHeight: 100), windowHeight: 1)
            row.reserveCapacity(count)
            #expect(throws: LayoutError.tooManyWindows(limit: 4 * count, windowHeight: 1, carousel: true)) { try row.append(items) }
        }
    }

    @Test func theMessageSaysWhatMakesTheLayoutShorter() {
        #expect(LayoutError.tooManyWindows(limit: 65_536, windowHeight: 2048).description
                == "the layout would be longer than 65536 pagination windows of 2048 points allow for its items; "
                + "a smaller width, item or row height, more columns, or taller windows make it shorter")
        // A carousel's extent runs along x and is its items' height's doing: width and columns are no advice.
        #expect(LayoutError.tooManyWindows(limit: 65_536, windowHeight: 375, carousel: true).description
                == "the carousel would be wider than 65536 pagination windows of 375 points allow for its items; "
                + "a smaller item height or spacing makes it narrower")
    }
}
