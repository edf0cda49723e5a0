import CatalogLayout
import Testing

@Suite struct PlacementTableTests {
    /// One column, no insets or spacing, ten items 100 tall: item i covers [100i, 100i + 100).
    func tenRows(windowHeight: Double) throws -> PlacementTable {
        let style = WaterfallLayout(width: 100, columns: 1, rowSpacing: 0, insets: Insets(all: 0))
        return try Layout(items: (0..<10).map { LayoutItem(id: Int64(90 + $0), width: 1, height: 1) }, style: style,
                          windowHeight: windowHeight).table
    }

    @Test func whenWindowsAreAskedFor_thenEachNamesTheItemsThatMeetIt() throws {
        let table = try tenRows(windowHeight: 250)
        #expect(table.windowHeight == 250)
        #expect(table.windowCount == 4, "1000 points of content in windows of 250")
        let packed = table.packedWindows()
        #expect(packed.minIndices == [0, 2, 5, 7], "item 2 spans 200..<300 and meets window 1; item 4 ends where window 2 starts")
        #expect(packed.maxIndices == [2, 4, 7, 9], "item 5 starts where window 1 ends")
    }

    @Test func whenABandIsQueried_thenIndicesAndItemsAgree() throws {
        let table = try tenRows(windowHeight: 250)
        #expect(table.indices(in: 250..<500) == [2, 3, 4])
        #expect(table.items(in: 250..<500).map(\.id) == [92, 93, 94])
        #expect(table.indices(in: 1000..<1200).isEmpty)
        #expect(table.scrollOffset(toItem: 4, viewportHeight: 300) == 400)
    }
}
