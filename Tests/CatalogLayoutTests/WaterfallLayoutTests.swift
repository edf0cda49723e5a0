import CatalogLayout
import Testing

@Suite struct WaterfallLayoutTests {
    func items(_ sizes: [(Double, Double)]) -> [LayoutItem] {
        sizes.enumerated().map { LayoutItem(id: Int64(100 + $0.offset), width: $0.element.0, height: $0.element.1) }
    }

    func frames<S>(_ layout: Layout<S>) -> [Rect] { (0..<layout.count).map { layout.attributes(at: $0).frame } }

    /// The tutorials' set-up: 2 columns, 15 points of padding everywhere, a 375-point screen.
    /// Column width = (375 − 15 − 15 − 15) / 2 = 165.
    @Test func whenClassicTutorialSetup_thenFramesAreHandComputed() throws {
        let style = WaterfallLayout(width: 375, columns: 2, columnSpacing: 15, rowSpacing: 15, insets: Insets(all: 15))
        let layout = try Layout(items: items([(100, 100), (200, 100), (100, 300), (100, 50)]), style: style)
        #expect(frames(layout) == [
            Rect(x: 15, y: 15, width: 165, height: 165),     // col 0, bottom 180
            Rect(x: 195, y: 15, width: 165, height: 82.5),   // col 1, bottom 97.5
            Rect(x: 195, y: 112.5, width: 165, height: 495), // col 1 is shorter: 97.5 + 15; bottom 607.5
            Rect(x: 15, y: 195, width: 165, height: 82.5),   // col 0: 180 + 15; bottom 277.5
        ])
        #expect(layout.contentHeight == 622.5)
        #expect((0..<4).map { layout.attributes(at: $0).column } == [0, 1, 1, 0])
        #expect(layout.attributes(at: 2).id == 102)
    }

    @Test func whenColumnsTie_thenLeftmostWins() throws {
        let style = WaterfallLayout(width: 316, columns: 3, columnSpacing: 10, rowSpacing: 4, insets: Insets(all: 8)) // w = 93.33…
        let layout = try Layout(items: items(Array(repeating: (1, 1), count: 7)), style: style)
        #expect((0..<7).map { layout.attributes(at: $0).column } == [0, 1, 2, 0, 1, 2, 0])
        let w: Double = 280.0 / 3 // (316 − 8 − 8 − 2 × 10) / 3; square items are w tall
        let secondRow: Double = 8 + w + 4
        #expect(layout.attributes(at: 3).frame.y == secondRow)
    }

    @Test func whenDirectionIsLeftToRightOrRightToLeft_thenColumnsFollowTheIndex() throws {
        let sizes = [(1.0, 3.0), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0)]
        let ltr = try Layout(items: items(sizes), style: WaterfallLayout(width: 216, columns: 2, insets: Insets(all: 8), direction: .leftToRight))
        #expect((0..<4).map { ltr.attributes(at: $0).column } == [0, 1, 0, 1])
        // w = (216 − 16 − 8) / 2 = 96; item 2 goes under the tall item 0 although column 1 is shorter.
        #expect(ltr.attributes(at: 2).frame == Rect(x: 8, y: 8 + 288 + 8, width: 96, height: 96))
        let rtl = try Layout(items: items(sizes), style: WaterfallLayout(width: 216, columns: 2, insets: Insets(all: 8), direction: .rightToLeft))
        #expect((0..<4).map { rtl.attributes(at: $0).column } == [1, 0, 1, 0])
        #expect(rtl.attributes(at: 0).frame == Rect(x: 112, y: 8, width: 96, height: 288))
    }

    @Test func whenOneColumnOneItemOrNone_thenEdgeCasesHold() throws {
        let one = try Layout(items: items([(4, 3)]), style: WaterfallLayout(width: 100, columns: 1, insets: Insets(top: 10, left: 5, bottom: 20, right: 15), extraHeight: 30))
        #expect(one.attributes(at: 0).frame == Rect(x: 5, y: 10, width: 80, height: 60 + 30))
        #expect(one.contentHeight == 10 + 90 + 20)
        let column = try Layout(items: items([(1, 1), (2, 1)]), style: WaterfallLayout(width: 100, columns: 1, rowSpacing: 5, insets: Insets(all: 0)))
        #expect(frames(column) == [Rect(x: 0, y: 0, width: 100, height: 100), Rect(x: 0, y: 105, width: 100, height: 50)])
        let empty = try Layout(items: [LayoutItem](), style: WaterfallLayout(width: 375, insets: Insets(top: 11, left: 0, bottom: 13, right: 0)))
        #expect(empty.count == 0)
        #expect(empty.contentHeight == 24)
        #expect(empty.items(in: 0..<1000).isEmpty)
    }

    @Test func bandsSelectOnlyPositiveOverlaps_atTopEdgesEndAndPastIt() throws {
        // One column, items 100 tall, spacing 0, no insets: item i covers [100i, 100i + 100).
        let layout = try Layout(items: items(Array(repeating: (1, 1), count: 50)), style: WaterfallLayout(width: 100, columns: 1, rowSpacing: 0, insets: Insets(all: 0)), windowHeight: 256)
        #expect(layout.items(in: 0..<1).map(\.index) == [0])
        #expect(layout.items(in: 100..<200).map(\.index) == [1], "a band starting on an edge excludes the item ending there")
        #expect(layout.items(in: 50..<100).map(\.index) == [0], "a band ending on an edge excludes the item starting there")
        #expect(layout.items(in: 99.5..<100.5).map(\.index) == [0, 1])
        #expect(layout.items(in: 250..<770).map(\.index) == Array(2...7), "spans several windows")
        #expect(layout.items(in: 4950..<6000).map(\.index) == [49])
        #expect(layout.items(in: 5000..<6000).isEmpty, "past the end")
        #expect(layout.items(in: -500 ..< -1).isEmpty)
        #expect(layout.items(in: -50..<50).map(\.index) == [0])
        #expect(layout.items(in: 300..<300).isEmpty)
    }

    @Test func scrollOffsetPutsTheItemOnTop_clampedToTheContent() throws {
        let layout = try Layout(items: items(Array(repeating: (1, 1), count: 20)), style: WaterfallLayout(width: 100, columns: 1, rowSpacing: 0, insets: Insets(all: 0)))
        #expect(layout.scrollOffset(toItem: 3, viewportHeight: 812) == 300)
        #expect(layout.scrollOffset(toItem: 19, viewportHeight: 812) == 2000 - 812)
        #expect(layout.scrollOffset(toItem: 19, viewportHeight: 5000) == 0)
        #expect(layout.items(in: Viewport(y: layout.scrollOffset(toItem: 5, viewportHeight: 250), height: 250)).map(\.index) == [5, 6, 7])
    }

    @Test func whenParametersCannotWork_thenErrorsSayWhy() {
        #expect(throws: LayoutError.invalidWidth(0)) { try WaterfallLayout(width: 0).makeGeometry() }
        #expect(throws: LayoutError.invalidColumnCount(0)) { try WaterfallLayout(width: 375, columns: 0).makeGeometry() }
        #expect(throws: LayoutError.invalidSpacing(name: "row spacing", value: -1)) { try WaterfallLayout(width: 375, rowSpacing: -1).makeGeometry() }
        #expect(throws: LayoutError.noRoomForColumns(width: 100, columns: 12, columnWidth: -4.0 / 12)) {
            try WaterfallLayout(width: 100, columns: 12).makeGeometry() // (100 − 16 − 88) / 12
        }
        #expect(LayoutError.noRoomForColumns(width: 100, columns: 12, columnWidth: -1).description.contains("12 columns do not fit in 100.0 points"))
        #expect(throws: LayoutError.invalidItemSize(index: 1, size: Size(width: 0, height: 5))) {
            try Layout(items: [LayoutItem(id: 1, width: 1, height: 1), LayoutItem(id: 2, width: 0, height: 5)], style: WaterfallLayout(width: 375))
        }
    }

    @Test func gridAndListStylesLayOutByTheirRules() throws {
        let grid = try Layout(items: items(Array(repeating: (3, 1), count: 5)), style: GridLayout(width: 320, columns: 3, columnSpacing: 10, rowSpacing: 6, insets: Insets(all: 10), cellHeight: .ratio(1.5)))
        // w = (320 − 20 − 20) / 3 = 93.33…, cell height 140.
        let w = 280.0 / 3
        let h = w * 1.5
        let row2 = 10 + h + 6
        let expected: [Rect] = [
            Rect(x: 10, y: 10, width: w, height: h), Rect(x: 20 + w, y: 10, width: w, height: h),
            Rect(x: 10 + 2 * (w + 10), y: 10, width: w, height: h),
            Rect(x: 10, y: row2, width: w, height: h), Rect(x: 20 + w, y: row2, width: w, height: h),
        ]
        #expect(frames(grid) == expected)
        let fixedGrid = try Layout(items: items(Array(repeating: (1, 9), count: 4)), style: GridLayout(width: 200, columns: 2, cellHeight: .fixed(50)))
        #expect(fixedGrid.contentHeight == 8 + 50 + 8 + 50 + 8)
        let list = try Layout(items: items([(2, 1), (1, 1)]), style: ListLayout(width: 120, rowSpacing: 4, insets: Insets(all: 10), rowHeight: .aspectRatio(extra: 20)))
        #expect(frames(list) == [Rect(x: 10, y: 10, width: 100, height: 70), Rect(x: 10, y: 84, width: 100, height: 120)])
        let fixedList = try Layout(items: items([(2, 1), (1, 1)]), style: ListLayout(width: 120, rowHeight: .fixed(44)))
        #expect(frames(fixedList).map(\.height) == [44, 44])
        #expect(throws: LayoutError.invalidHeight(name: "cell height", value: 0)) { try GridLayout(width: 200, cellHeight: .fixed(0)).makeGeometry() }
    }
}
