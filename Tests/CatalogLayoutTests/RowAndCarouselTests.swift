import CatalogLayout
import PropertyBased
import Testing

/// Justified rows and the carousel against their naive references, through the tables, their
/// archives and appends; carousel effects and snapping.
@Suite struct RowAndCarouselTests {
    /// Random sizes with the awkward ones mixed in: a panorama 40 times wider than tall, a
    /// portrait 40 times taller than wide.
    static let sizes = zip(Gen.double(in: 1...4000), Gen.double(in: 1...4000), Gen.int(in: 0...12)).array(of: 1...200).map { values in
        values.map { value -> (Double, Double, Int) in
            switch value.2 {
            case 0: (4000, 100, value.2)
            case 1: (100, 4000, value.2)
            default: (value.0, value.1, value.2)
            }
        }
    }

    @Test func justifiedRowsEqualTheReference_withAndWithoutSections() async {
        await propertyCheck(count: 200, input: Self.sizes,
                            zip(Gen.double(in: 80...1600), Gen.double(in: 20...400), Gen.double(in: 0...60), Gen.double(in: 0...20)),
                            zip(Gen.bool, Gen.double(in: 0...40), Gen.double(in: 0...20), Gen.double(in: 64...3000)),
                            Gen.double(in: -0.05...1.05).array(of: 8)) { values, geometry, sectionValues, starts in
            let (width, target, spacing, rowSpacing) = geometry
            let (sectioned, headerHeight, footer, windowHeight) = sectionValues
            let style = JustifiedLayout(width: width, rowHeight: target, spacing: spacing, rowSpacing: rowSpacing, insets: Insets(all: 4))
            let items = values.enumerated().map { LayoutItem(id: Int64($0.offset) + 100, width: $0.element.0, height: $0.element.1) }
            var keys: [UInt64] = []
            var key: UInt64 = 1
            for (index, value) in values.enumerated() {
                if index > 0 && value.2 == 3 { key += 1 }
                keys.append(key)
            }
            let sectioning = sectioned ? Sectioning(headerHeight: headerHeight < 10 ? 0 : headerHeight, footerHeight: footer < 8 ? 0 : footer, sectionSpacing: 12) : nil
            // Every generated style and sectioning is valid (at least 72 points between the insets).
            guard let table = try? RowTable(items: items, style: style, sections: sectioned ? SectionStart.runs(of: keys) : nil,
                                            sectioning: sectioning, windowHeight: windowHeight) else {
                Issue.record("refused")
                return
            }
            let reference = JustifiedReference(items: items, keys: sectioned ? keys : nil, style: style, sectioning: sectioning)
            #expect(abs(table.contentHeight - reference.contentHeight) <= 1e-6)
            let all = table.items(in: -1..<(reference.contentHeight + 1))
            #expect(all.count == reference.placements.count && zip(all, reference.placements).allSatisfy { $1.matches($0) },
                    "\(all.prefix(6)) vs \(reference.placements.prefix(6))")
            for index in items.indices {
                let cell = reference.placements.first { $0.kind == .cell && $0.index == index }!
                #expect(cell.matches(table.attributes(at: index)))
            }
            let archive = table.archive()
            let header = try? LayoutArchiveHeader(bytes: archive.header)
            #expect(header?.version == 3)
            for start in starts {
                let band = (start * reference.contentHeight)..<(start * reference.contentHeight + 600)
                for pinning in [false, true] {
                    let got = table.items(in: band, pinningHeaders: pinning)
                    let want = reference.placements(in: band, pinning: pinning)
                    #expect(got.count == want.count && zip(got, want).allSatisfy { $1.matches($0) }, "band \(band) pin \(pinning)")
                    let windows = header?.windows(for: band).map { Array(archive.windows[$0]) } ?? []
                    #expect((try? header?.items(in: band, windows: windows, pinningHeaders: pinning)) == got, "the archive answers as the table")
                }
            }
            // Laid out in two parts, the second appended to the table read back: the same bytes.
            let split = Int(starts[0].magnitude.truncatingRemainder(dividingBy: 1) * Double(items.count))
            guard var part = try? RowTable(items: Array(items[..<split]), style: style,
                                           sections: sectioned ? SectionStart.runs(of: keys[..<split]) : nil, sectioning: sectioning,
                                           windowHeight: windowHeight),
                  var readBack = try? RowTable(archive: part.archive()) else {
                Issue.record("the first part could not be laid out or read back")
                return
            }
            let rest = Array(items[split...])
            let restStarts = sectioned ? SectionStart.runs(of: keys[split...]) : nil
            try? readBack.append(rest, sections: restStarts)
            try? part.append(rest, sections: restStarts)
            #expect(readBack.archive() == archive, "appending to the archived part gives the whole")
            #expect(part.archive() == archive, "appending in memory gives the whole")
        }
    }

    /// An open last row flowed again with appended items can end higher (it closes with them,
    /// shorter) or lower (it closes without the next one, taller than the target) than it was
    /// stored: the windows around its old and new bottom are rebuilt either way (the property
    /// test above found the first; the windows kept a start that no longer met them).
    @Test(arguments: [(1.0, 100.0 / 4000, 40.0), (1.0, 0.5, 40.0)])
    func anOpenRowFlowedAgainRebuildsTheWindowsAroundIt(_ aspects: (Double, Double, Double)) throws {
        let style = JustifiedLayout(width: 80, rowHeight: 97.54789532611157, spacing: 0, rowSpacing: 0.7373707005531784, insets: Insets(all: 4))
        let items = [aspects.0, aspects.1, aspects.2].enumerated().map { LayoutItem(id: Int64($0.offset), width: $0.element * 1000, height: 1000) }
        for sectioning in [Sectioning(headerHeight: 17.21277322018676, footerHeight: 8, sectionSpacing: 12), nil] {
            for windowHeight in [96.48639032397895, 50, 120, 2048] {
                let whole = try RowTable(items: items, style: style, sections: sectioning == nil ? nil : SectionStart.runs(of: [1, 1, 1]),
                                         sectioning: sectioning, windowHeight: windowHeight)
                var part = try RowTable(items: Array(items[..<2]), style: style, sections: sectioning == nil ? nil : SectionStart.runs(of: [1, 1]),
                                        sectioning: sectioning, windowHeight: windowHeight)
                #expect(part.lastRowOpen)
                try part.append([items[2]])
                #expect(part.archive() == whole.archive(), "window height \(windowHeight), sections \(sectioning != nil)")
                #expect(part.items(in: 0..<whole.contentHeight) == whole.items(in: 0..<whole.contentHeight))
            }
        }
    }

    @Test func aSingleItem_aPanorama_andSpacingWiderThanTheItems() throws {
        let single = try RowTable(items: [LayoutItem(id: 1, width: 300, height: 200)], style: JustifiedLayout(width: 1000, rowHeight: 180))
        #expect(single.items(in: 0..<1000).map(\.frame) == [Rect(x: 8, y: 8, width: 270, height: 180)], "an unfinished row keeps the target")
        let panorama = try RowTable(items: [LayoutItem(id: 1, width: 10_000, height: 100), LayoutItem(id: 2, width: 300, height: 200)],
                                    style: JustifiedLayout(width: 1000, rowHeight: 180))
        let frames = panorama.items(in: 0..<1000).map(\.frame)
        #expect(frames[0] == Rect(x: 8, y: 8, width: 984, height: 9.84), "alone in its row, at the width")
        #expect(frames[1].y == 8 + 9.84 + 8 && frames[1].height == 180)
        // Spacing wider than the content: a second item would make the row's height negative.
        let wide = try RowTable(items: (0..<3).map { LayoutItem(id: Int64($0), width: 100, height: 100) },
                                style: JustifiedLayout(width: 100, rowHeight: 50, spacing: 500, insets: Insets(all: 0)))
        #expect(wide.items(in: 0..<10_000).map(\.frame.height) == [100, 100, 50], "one item a row, each as tall as wide, the last at the target")
        #expect(throws: LayoutError.self) { try RowTable(items: [LayoutItem(id: 1, width: 0, height: 5)], style: JustifiedLayout(width: 100)) }
        #expect(throws: LayoutError.self) {
            try RowTable(items: [], style: JustifiedLayout(width: 100), sectioning: Sectioning(spanEvery: 3))
        }
    }

    @Test func carouselFramesBandsAndArchiveEqualTheReference() async {
        await propertyCheck(count: 150, input: Self.sizes, zip(Gen.double(in: 20...600), Gen.double(in: 0...40), Gen.double(in: 64...5000)),
                            Gen.double(in: -0.05...1.05).array(of: 8)) { values, geometry, starts in
            let (itemHeight, spacing, windowWidth) = geometry
            let style = CarouselLayout(itemHeight: itemHeight, spacing: spacing, insets: Insets(top: 10, left: 6, bottom: 12, right: 4))
            let items = values.enumerated().map { LayoutItem(id: Int64($0.offset), width: $0.element.0, height: $0.element.1) }
            guard let table = try? CarouselTable(items: items, style: style, windowHeight: windowWidth) else {
                Issue.record("refused")
                return
            }
            let reference = CarouselReference(items: items, style: style)
            #expect(abs(table.contentWidth - reference.contentWidth) <= 1e-6)
            #expect(table.contentHeight == 10 + itemHeight + 12)
            for index in items.indices {
                let a = table.attributes(at: index).frame, r = reference.frames[index]
                #expect(abs(a.x - r.x) <= 1e-6 && abs(a.width - r.width) <= 1e-6 && a.y == r.y && a.height == r.height)
            }
            let archive = table.archive()
            let header = try? LayoutArchiveHeader(bytes: archive.header)
            #expect(header?.version == 4)
            for start in starts {
                let band = (start * reference.contentWidth)..<(start * reference.contentWidth + 500)
                #expect(table.items(in: band).map(\.index) == reference.indices(in: band))
                let windows = header?.windows(for: band).map { Array(archive.windows[$0]) } ?? []
                #expect((try? header?.items(in: band, windows: windows)) == table.items(in: band))
            }
            let split = items.count / 2
            guard var part = try? CarouselTable(items: Array(items[..<split]), style: style, windowHeight: windowWidth),
                  var readBack = try? CarouselTable(archive: part.archive()) else {
                Issue.record("the first half could not be laid out or read back")
                return
            }
            try? part.append(Array(items[split...]))
            try? readBack.append(Array(items[split...]))
            #expect(part.archive() == archive && readBack.archive() == archive)
        }
    }

    @Test func snappingCentresAnItem_withAndWithoutVelocity() async {
        await propertyCheck(count: 150, input: Self.sizes, Gen.double(in: -500...20_000), Gen.double(in: -3...3), Gen.double(in: 100...1200)) {
            values, proposed, velocity, viewport in
            let items = values.enumerated().map { LayoutItem(id: Int64($0.offset), width: $0.element.0, height: $0.element.1) }
            let style = CarouselLayout(itemHeight: 200)
            guard let table = try? CarouselTable(items: items, style: style) else {
                Issue.record("refused")
                return
            }
            let reference = CarouselReference(items: items, style: style)
            for v in [0, velocity] {
                let got = table.snap(proposed: proposed, velocity: v, viewportWidth: viewport)
                let want = reference.snap(proposed: proposed, velocity: v, viewport: viewport)
                #expect(got?.index == want?.1 && abs((got?.offset ?? 0) - (want?.0 ?? 0)) <= 1e-9, "proposed \(proposed) velocity \(v)")
            }
        }
    }

    /// Two equal items 100 wide, 10 apart: a point halfway between their centres snaps to the
    /// lower index; at both ends the answer is clamped.
    @Test func snappingTiesGoToTheLowerIndex_andEndsClamp() throws {
        let table = try CarouselTable(items: (0..<5).map { LayoutItem(id: Int64($0), width: 1, height: 1) },
                                      style: CarouselLayout(itemHeight: 100, spacing: 10, insets: Insets(all: 0)))
        // Centres at 50, 160, 270, 380, 490; content 540 wide; viewport 100.
        #expect(table.snap(proposed: 105 - 50, viewportWidth: 100)! == (offset: 0, index: 0), "at 105: 50 and 160 tie; the lower wins")
        // No number to snap from: no answer, rather than item 0 or the last one.
        for (proposed, viewport) in [(Double.nan, 100.0), (-.infinity, 100), (55, .nan), (55, -100), (55, .infinity)] {
            #expect(table.snap(proposed: proposed, viewportWidth: viewport) == nil, "\(proposed), \(viewport)")
        }
        #expect(table.snap(proposed: 105 - 50, velocity: .nan, viewportWidth: 100)! == (offset: 0, index: 0), "a NaN velocity is none")
        #expect(table.snap(proposed: 105 - 50, velocity: 1, viewportWidth: 100)! == (offset: 110, index: 1))
        #expect(table.snap(proposed: 330 - 50, velocity: -2, viewportWidth: 100)! == (offset: 220, index: 2))
        #expect(table.snap(proposed: -400, viewportWidth: 100)! == (offset: 0, index: 0))
        #expect(table.snap(proposed: 10_000, velocity: 5, viewportWidth: 100)! == (offset: 440, index: 4))
        #expect(table.snap(proposed: 10_000, velocity: -5, viewportWidth: 100)! == (offset: 440, index: 4))
        #expect(try CarouselTable(items: [], style: CarouselLayout()).snap(proposed: 0, viewportWidth: 100) == nil)
    }

    @Test func effectsScaleAndFadeByDistance_andStackTheNearestOnTop() throws {
        let table = try CarouselTable(items: (0..<5).map { LayoutItem(id: Int64($0), width: 1, height: 1) },
                                      style: CarouselLayout(itemHeight: 100, spacing: 10, insets: Insets(all: 0)))
        let items = table.items(in: 0..<540)
        // Viewport 0 ..< 320: centre 160, item 1's. Falloff 160.
        let effects = CarouselTable.effects(of: items, viewportX: 0, viewportWidth: 320, falloff: 160, minimumScale: 0.8, minimumAlpha: 0.5)
        #expect(effects[1] == CarouselEffect(scale: 1, alpha: 1, zIndex: 5))
        #expect(abs(effects[0].scale - (1 - 0.2 * 110 / 160)) < 1e-12 && abs(effects[0].alpha - (1 - 0.5 * 110 / 160)) < 1e-12)
        #expect(effects[0].zIndex == 4 && effects[2].zIndex == 3, "equal distances: the lower index above")
        #expect(effects[4] == CarouselEffect(scale: 0.8, alpha: 0.5, zIndex: 1), "past the falloff: the minimums")
    }

    /// As `Layout` does: sections need a `Sectioning` (without one a start opened a section
    /// with no header, no footer and no spacing, invisible and yet restarting the rows).
    @Test func whenRowsWithoutSectioningAreGivenSectionStarts_thenInvalidSections_andTheTableIsUnchanged() throws {
        let items = (0..<8).map { LayoutItem(id: Int64($0), width: 300, height: 200) }
        let refusal = LayoutError.invalidSections("this layout has no sections: lay it out with a Sectioning")
        var rows = try RowTable(items: Array(items[..<5]), style: JustifiedLayout(width: 375))
        let before = rows.archive()
        #expect(throws: refusal) { try rows.append(Array(items[5...]), sections: [SectionStart(offset: 0, key: 7)]) }
        #expect(rows.archive() == before)
        #expect(throws: refusal) {
            try RowTable(items: items, style: JustifiedLayout(width: 375), sections: [SectionStart(offset: 0, key: 1)])
        }
        try rows.append(Array(items[5...]))
        #expect(rows.count == 8 && rows.sectionInfos.isEmpty)
    }
}
