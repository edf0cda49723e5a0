import CatalogLayout
import PropertyBased
import Testing

/// Random layouts against the brute-force reference: every frame to 1e-6, and every band's
/// items equal to a scan over all frames, including window heights small enough that items
/// span many windows.
@Suite struct LayoutPropertyTests {
    static let sizes = zip(Gen.double(in: 1...4000), Gen.double(in: 1...4000)).array(of: 0...300)

    @Test func waterfallFramesAndBandsEqualTheReference() async {
        // Past 16 columns a heap chooses the shortest, and one pass fills the column lists.
        var checked = 0
        await propertyCheck(count: 150, input: Self.sizes, Gen.int(in: 1...40), Gen.double(in: 200...2000),
                            zip(Gen.double(in: 0...30), Gen.double(in: 0...30), Gen.double(in: 0...40), Gen<RenderDirection>.case),
                            zip(Gen.double(in: 0...25), Gen.double(in: 0...25), Gen.double(in: 0...25), Gen.double(in: 0...25)),
                            zip(Gen.double(in: 50...3000), Gen.double(in: -0.1...1.1).array(of: 12), Gen.double(in: 1...2000))) {
            sizes, columns, width, spacing, insetValues, query in
            let (columnSpacing, rowSpacing, extra, direction) = spacing
            let (windowHeight, bandStarts, bandHeight) = query
            let insets = Insets(top: insetValues.0, left: insetValues.1, bottom: insetValues.2, right: insetValues.3)
            let style = WaterfallLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing,
                                        insets: insets, extraHeight: extra, direction: direction)
            guard (try? style.makeGeometry()) != nil else { return }
            let items = sizes.enumerated().map { LayoutItem(id: Int64($0.offset * 7 - 50), width: $0.element.0, height: $0.element.1) }
            guard let layout = try? Layout(items: items, style: style, windowHeight: windowHeight) else {
                Issue.record("valid parameters were refused")
                return
            }
            checked += 1
            let reference = Reference(items: items, waterfall: style)
            expectSameFrames(layout, reference, ids: items.map(\.id))
            for start in bandStarts {
                let y0 = start * reference.contentHeight
                let band = y0..<(y0 + bandHeight)
                #expect(layout.items(in: band).map(\.index) == reference.indices(in: band), "band \(band)")
            }
            // Bands that start and end exactly on frame edges.
            for frame in reference.frames.prefix(20) {
                let edges = frame.rect.y..<(frame.rect.y + frame.rect.height)
                #expect(layout.items(in: edges).map(\.index) == reference.indices(in: edges))
                let below = (frame.rect.y + frame.rect.height)..<(frame.rect.y + frame.rect.height + 1)
                #expect(layout.items(in: below).map(\.index) == reference.indices(in: below))
            }
        }
        #expect(checked > 0, "every generated case had columns that do not fit")
    }

    @Test func gridAndListEqualTheReference() async {
        var gridsChecked = 0
        await propertyCheck(count: 60, input: Self.sizes, Gen.int(in: 1...30), Gen.double(in: 100...1200),
                            zip(Gen.double(in: 0.2...3), Gen.double(in: 0...20), Gen.double(in: 0.1...2))) { sizes, columns, width, params in
            let (ratio, spacing, bandFraction) = params
            let items = sizes.enumerated().map { LayoutItem(id: Int64($0.offset), width: $0.element.0, height: $0.element.1) }
            let insets = Insets(all: spacing / 2)
            let grid = GridLayout(width: width, columns: columns, columnSpacing: spacing, rowSpacing: spacing, insets: insets, cellHeight: .ratio(ratio))
            if (try? grid.makeGeometry()) != nil { // the columns fit the width
                do {
                    let layout = try Layout(items: items, style: grid, windowHeight: 300)
                    gridsChecked += 1
                    let reference = Reference(items: items, width: width, columns: columns, columnSpacing: spacing, rowSpacing: spacing, insets: insets,
                                              columnFor: { index, _ in index % columns }, heightOf: { _, w in w * ratio })
                    expectSameFrames(layout, reference)
                    let band = (bandFraction * reference.contentHeight / 2)..<(bandFraction * reference.contentHeight)
                    #expect(layout.items(in: band).map(\.index) == reference.indices(in: band))
                } catch {
                    Issue.record("a valid grid was refused: \(error)")
                }
            }
            // One column at least 80 points wide and a positive extra height: always valid.
            let list = ListLayout(width: width, rowSpacing: spacing, insets: insets, rowHeight: .aspectRatio(extra: ratio * 10))
            do {
                let layout = try Layout(items: items, style: list, windowHeight: 500)
                let reference = Reference(items: items, width: width, columns: 1, columnSpacing: 0, rowSpacing: spacing, insets: insets,
                                          columnFor: { _, _ in 0 }, heightOf: { item, w in w * item.size.height / item.size.width + ratio * 10 })
                expectSameFrames(layout, reference)
                let band = (bandFraction * reference.contentHeight / 3)..<(bandFraction * reference.contentHeight)
                #expect(layout.items(in: band).map(\.index) == reference.indices(in: band))
            } catch {
                Issue.record("a valid list was refused: \(error)")
            }
        }
        #expect(gridsChecked > 0, "every generated grid had columns that do not fit")
    }
}
