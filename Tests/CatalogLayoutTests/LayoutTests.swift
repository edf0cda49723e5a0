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
}
