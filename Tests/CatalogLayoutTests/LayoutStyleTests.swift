import CatalogLayout
import Testing

/// A style written outside the module, as an app may: what `LayoutStyle`, `PlacementRule` and
/// the public `ColumnGeometry` initializer are for. Two 50-point columns filled right to
/// left, every item 30 points tall whatever its size.
struct Shelves: LayoutStyle {
    var width: Double

    func makeGeometry() throws(LayoutError) -> ColumnGeometry {
        try ColumnGeometry(width: width, columns: 2, columnSpacing: 10, rowSpacing: 5, insets: Insets(all: 0))
    }

    var placement: PlacementRule { PlacementRule(column: .cyclicReversed, height: .fixed(30)) }
}

@Suite struct LayoutStyleTests {
    @Test func whenAnAppDefinesItsOwnStyle_thenItsRuleDecidesColumnsAndHeights() throws {
        // Sizes are not looked at by a fixed height, so zero sizes are accepted.
        let layout = try Layout(items: (0..<3).map { LayoutItem(id: $0, width: 0, height: 0) }, style: Shelves(width: 110))
        #expect(layout.items(in: 0..<1000) == [
            LayoutAttributes(index: 0, id: 0, frame: Rect(x: 60, y: 0, width: 50, height: 30), column: 1),
            LayoutAttributes(index: 1, id: 1, frame: Rect(x: 0, y: 0, width: 50, height: 30), column: 0),
            LayoutAttributes(index: 2, id: 2, frame: Rect(x: 60, y: 35, width: 50, height: 30), column: 1),
        ])
        #expect(layout.contentHeight == 65)
    }

    @Test func whenBuiltInStylesAreAskedForTheirRule_thenItMatchesTheirParameters() {
        #expect(WaterfallLayout(width: 375).placement == PlacementRule(column: .shortestFirst, height: .aspectRatio(extra: 0)))
        #expect(WaterfallLayout(width: 375, extraHeight: 20, direction: .leftToRight).placement
            == PlacementRule(column: .cyclic, height: .aspectRatio(extra: 20)))
        #expect(WaterfallLayout(width: 375, direction: .rightToLeft).placement.column == .cyclicReversed)
        #expect(GridLayout(width: 300, cellHeight: .ratio(1.5)).placement == PlacementRule(column: .cyclic, height: .widthRatio(1.5)))
        #expect(GridLayout(width: 300, cellHeight: .fixed(40)).placement.height == .fixed(40))
        #expect(ListLayout(width: 300, rowHeight: .aspectRatio(extra: 12)).placement == PlacementRule(column: .cyclic, height: .aspectRatio(extra: 12)))
    }
}
