import CatalogLayout
import Testing

/// The examples of the module's landing page (CatalogLayout.docc/CatalogLayout.md), as written
/// there: they compile, and they do what the page says. The parameters a library user gives
/// past the bounds are refused with what the bound is, not a trap.
@Suite struct DocumentationExampleTests {
    static let items: [LayoutItem] = (1...40).map { (n: Int) -> LayoutItem in
        let (width, height): (Double, Double) = (Double(100 + n * 7), Double(300 - n * 3))
        return LayoutItem(id: Int64(n), width: width, height: height)
    }

    @Test func theCarouselExample() throws {
        let (items, moreItems) = (Array(Self.items.prefix(30)), Array(Self.items.dropFirst(30)))
        let (scrollX, proposedX, velocityX) = (1000.0, 1234.0, 0.5)
        var carousel = try CarouselTable(items: items, style: CarouselLayout(itemHeight: 300))
        try carousel.append(moreItems)                               // O(new items), as a layout's
        let visible = carousel.items(in: scrollX..<(scrollX + 375))  // a band along x
        let effects = CarouselTable.effects(of: visible, viewportX: scrollX, viewportWidth: 375,
                                            falloff: 375, minimumScale: 0.8, minimumAlpha: 0.5)
        let stop = carousel.snap(proposed: proposedX, velocity: velocityX, viewportWidth: 375)?.offset
        #expect(carousel.count == 40 && !visible.isEmpty && effects.count == visible.count)
        #expect(effects.allSatisfy { (0.8...1).contains($0.scale) && (0.5...1).contains($0.alpha) })
        let centred = try #require(stop)
        #expect(visible.count > 0 && centred >= proposedX, "a fling to the right stops at or past where it was proposed")
    }

    @Test func theStoringExample() throws {
        let layout = try Layout(items: Self.items, style: WaterfallLayout(width: 375, columns: 2))
        let archive = layout.table.archive()             // a header and one blob per window
        let table = try PlacementTable(archive: archive)
        let restored = try Layout(table: table, style: WaterfallLayout(width: 375, columns: 2))
        #expect(restored.table.contentHeight == layout.table.contentHeight)
        #expect((0..<40).allSatisfy { restored.table.attributes(at: $0) == layout.table.attributes(at: $0) })
    }

    /// A carousel's effects stay within 0...1 whatever minimums it is given.
    @Test func theCarouselsEffectsStayWithinZeroAndOne() throws {
        let carousel = try CarouselTable(items: Self.items, style: CarouselLayout())
        let visible = carousel.items(in: 0..<2000)
        let effects = CarouselTable.effects(of: visible, viewportX: 0, viewportWidth: 375, falloff: -5, minimumScale: 1.5, minimumAlpha: -1)
        #expect(effects.allSatisfy { (0...1).contains($0.scale) && (0...1).contains($0.alpha) }, "\(effects.prefix(3))")
    }

    /// Columns past the bound, and a checkpoint interval past its own, are refused: the first
    /// trapped allocating a column's arrays, the second overflowed at the first edit.
    @Test func boundsPastWhichALayoutIsRefusedNotTrapped() throws {
        #expect(throws: LayoutError.invalidColumnCount(.max)) {
            try Layout(items: [LayoutItem(id: 1, width: 100, height: 100)], style: WaterfallLayout(width: 375, columns: .max, columnSpacing: 0))
        }
        #expect(throws: LayoutError.invalidColumnCount(ColumnGeometry.maximumColumns + 1)) {
            try WaterfallLayout(width: 1e6, columns: ColumnGeometry.maximumColumns + 1, columnSpacing: 0).makeGeometry()
        }
        #expect(try WaterfallLayout(width: 1e6, columns: ColumnGeometry.maximumColumns, columnSpacing: 0).makeGeometry().columnCount == 4096)
        #expect(throws: LayoutError.invalidCheckpointInterval(.max)) {
            try Layout(items: Self.items, style: WaterfallLayout(width: 375), checkpointInterval: .max)
        }
        var layout = try Layout(items: Self.items, style: WaterfallLayout(width: 375), checkpointInterval: PlacementTable.maximumCheckpointInterval)
        try layout.insert([LayoutItem(id: 99, width: 10, height: 10)], at: 20)
        #expect(layout.table.count == 41)
        #expect(LayoutError.invalidColumnCount(0).description == "columns must be a whole number from 1 to 4096, got 0")
        #expect(LayoutError.noRoomForColumns(width: 10, columns: 1, columnWidth: -6).description
                == "no room for the content in 10.0 points: after the insets it would be -6.0 points wide")
    }
}
