import CatalogLayout
import Testing

@Suite struct LayoutTests {
    func items(_ count: Int) -> [LayoutItem] {
        (0..<count).map { (i: Int) -> LayoutItem in LayoutItem(id: Int64(500 + i), width: 100, height: Double(40 + i * 37 % 90)) }
    }

    @Test func whenAStoredTableIsResumedWithItsStyle_thenAppendingEqualsAFullComputation() throws {
        let style = WaterfallLayout(width: 375, columns: 3)
        let all = items(40)
        let stored = try PlacementTable(archive: Layout(items: Array(all[..<30]), style: style).table.archive())
        var resumed = try Layout(table: stored, style: style)
        #expect(resumed.style == style)
        #expect(resumed.count == 30)
        try resumed.append(Array(all[30...]))
        #expect(resumed.table.archive() == (try Layout(items: all, style: style).table.archive()))
    }

    @Test func whenAStoredTableIsResumedWithAnotherStyle_thenGeometryMismatch() throws {
        let stored = try Layout(items: items(10), style: WaterfallLayout(width: 375, columns: 3)).table
        #expect(throws: LayoutError.geometryMismatch) { try Layout(table: stored, style: WaterfallLayout(width: 375, columns: 2)) }
        #expect(throws: LayoutError.geometryMismatch) { try Layout(table: stored, style: WaterfallLayout(width: 376, columns: 3)) }
    }

    @Test func whenAskedForItsGeometry_thenTheLayoutGivesTheStylesColumns() throws {
        let insets = Insets(top: 1, left: 10, bottom: 3, right: 20)
        let layout = try Layout(items: items(5), style: GridLayout(width: 330, columns: 3, columnSpacing: 10, rowSpacing: 6, insets: insets))
        let geometry = layout.geometry
        #expect((geometry.width, geometry.columnCount, geometry.columnSpacing, geometry.rowSpacing) == (330, 3, 10, 6))
        #expect(geometry.insets == insets)
        #expect(geometry.columnWidth == 280.0 / 3, "(330 − 10 − 20 − 2 × 10) / 3")
        #expect(layout.table.geometry == geometry)
        #expect(layout.attributes(at: 2).frame.width == geometry.columnWidth)
    }

    /// A grid's table has the waterfall's columns but not its rule: appending to it as a
    /// waterfall would mix two placements in one layout.
    @Test func whenAComputedTableIsResumedWithAStyleThatPlacesItemsOtherwise_thenGeometryMismatch() throws {
        let grid = GridLayout(width: 375, columns: 2, cellHeight: .fixed(50))
        let waterfall = WaterfallLayout(width: 375, columns: 2)
        #expect(grid.placement != waterfall.placement)
        #expect(try grid.makeGeometry() == waterfall.makeGeometry(), "the same columns")
        let computed = try Layout(items: items(10), style: grid).table
        #expect(throws: LayoutError.geometryMismatch) { try Layout(table: computed, style: waterfall) }
        #expect(try Layout(table: computed, style: grid).count == 10, "its own style resumes it")
        // An archive keeps only the columns: a decoded table is taken by any style with them, as
        // the documentation says, and keeps the rule of the style that resumed it.
        let decoded = try PlacementTable(archive: computed.archive())
        let resumed = try Layout(table: decoded, style: waterfall)
        #expect(throws: LayoutError.geometryMismatch) { try Layout(table: resumed.table, style: grid) }
    }

    /// As rows and the carousel do for the same values: an error, not a precondition failure.
    @Test func whenTheWindowHeightOrTheCheckpointIntervalCannotWork_thenLayoutThrows() throws {
        let style = WaterfallLayout(width: 375)
        for windowHeight in [0, -1, Double.infinity, -Double.infinity] {
            #expect(throws: LayoutError.invalidHeight(name: "window height", value: windowHeight)) {
                try Layout(items: items(3), style: style, windowHeight: windowHeight)
            }
            #expect(throws: LayoutError.invalidHeight(name: "window height", value: windowHeight)) {
                try Layout(items: items(3), sections: [SectionStart(offset: 0, key: 1)], sectioning: Sectioning(), style: style, windowHeight: windowHeight)
            }
            #expect(throws: LayoutError.invalidHeight(name: "window height", value: windowHeight)) {
                try RowTable(items: items(3), style: JustifiedLayout(width: 375), windowHeight: windowHeight)
            }
        }
        let error = #expect(throws: LayoutError.self) { try Layout(items: items(3), style: style, windowHeight: .nan) }
        guard case .invalidHeight(name: "window height", let value) = error, value.isNaN else {
            Issue.record("\(String(describing: error)) for a NaN window height")
            return
        }
        for interval in [0, -3] {
            #expect(throws: LayoutError.invalidCheckpointInterval(interval)) { try Layout(items: items(3), style: style, checkpointInterval: interval) }
            let archive = try Layout(items: items(3), style: style).table.archive()
            #expect(throws: LayoutError.invalidCheckpointInterval(interval)) { try PlacementTable(archive: archive, checkpointInterval: interval) }
        }
        #expect(LayoutError.invalidCheckpointInterval(0).description == "the checkpoint interval must be from 1 to 1073741824 items, got 0")
    }

    /// A band far down (1e300, 1e23, infinity) meets nothing and a viewport whose y is not a
    /// number meets nothing, in every kind of table: no trap converting an offset to a window.
    @Test func whenABandLiesFarPastTheContent_orIsNotANumber_thenTheAnswerIsEmptyOrClamped() throws {
        let style = WaterfallLayout(width: 375)
        let plain = try Layout(items: items(100), style: style)
        let sectioned = try Layout(items: items(100), sections: [SectionStart(offset: 0, key: 1), SectionStart(offset: 40, key: 2)],
                                   sectioning: Sectioning(headerHeight: 20, footerHeight: 10), style: style)
        let rows = try RowTable(items: items(100), style: JustifiedLayout(width: 375), sections: [SectionStart(offset: 0, key: 1)],
                                sectioning: Sectioning(headerHeight: 20))
        let carousel = try CarouselTable(items: items(100), style: CarouselLayout())
        let tables: [(String, any LayoutTable)] = [("plain", plain.table), ("sections", sectioned.table), ("rows", rows), ("carousel", carousel)]
        for (name, table) in tables {
            for band in [1e300..<2e300, 1e23..<(1e23 + 800), Double.infinity..<Double.infinity, Double.greatestFiniteMagnitude..<Double.infinity] {
                #expect(table.items(in: band, pinningHeaders: true).isEmpty, "\(name), \(band)")
                #expect(table.items(in: band, pinningHeaders: false).isEmpty, "\(name), \(band)")
            }
            let everything = table.items(in: -1..<(table.scrollLength + 1), pinningHeaders: false)
            #expect(!everything.isEmpty)
            #expect(table.items(in: -Double.infinity..<Double.infinity, pinningHeaders: false) == everything, "\(name): clamped to the content")
            #expect(table.items(in: 10..<Double.infinity, pinningHeaders: false) == table.items(in: 10..<(table.scrollLength + 1), pinningHeaders: false),
                    "\(name)")
        }
        #expect(plain.table.indices(in: 1e300..<2e300).isEmpty)
        for viewport in [Viewport(y: .nan, height: 800), Viewport(y: -.infinity, height: .infinity), Viewport(y: .infinity, height: 800),
                         Viewport(y: 100, height: .nan)] {
            #expect(plain.items(in: viewport).isEmpty, "\(viewport)")
            #expect(sectioned.items(in: viewport, pinningHeaders: true).isEmpty, "\(viewport)")
        }
        #expect(plain.items(in: Viewport(y: 100, height: .infinity)) == plain.items(in: 100..<Double.infinity))
    }

    @Test func anItemIsMadeFromASizeAsFromItsSides() {
        #expect(LayoutItem(id: 7, size: Size(width: 3, height: 2)) == LayoutItem(id: 7, width: 3, height: 2))
    }
}
