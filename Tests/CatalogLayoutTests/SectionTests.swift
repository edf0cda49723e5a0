import CatalogLayout
import PropertyBased
import Testing

/// Sections, headers, footers, full-span items and pinned headers against the naive reference,
/// through the table, its archive and appends.
@Suite struct SectionTests {
    struct Case {
        var items: [LayoutItem]
        var keys: [UInt64]
        var sectioning: Sectioning
        var geometry: (width: Double, columns: Int, columnSpacing: Double, rowSpacing: Double, insets: Insets)
        var style: Int // 0 waterfall shortest, 1 waterfall ltr, 2 waterfall rtl, 3 grid, 4 list

        /// Whether the columns fit the width: the one parameter generated out of range (a list
        /// has one column and no column spacing).
        var columnsFit: Bool {
            let (width, columns, columnSpacing, rowSpacing, insets) = geometry
            let list = style == 4
            return (try? ColumnGeometry(width: width, columns: list ? 1 : columns, columnSpacing: list ? 0 : columnSpacing,
                                        rowSpacing: rowSpacing, insets: insets)) != nil
        }

        /// The layout and its reference; nil, with no issue, when the content reaches past the
        /// windows a layout may have (``LayoutError/tooManyWindows(limit:windowHeight:)``), which
        /// the most extreme sizes can in one column with small windows; any other refusal of a
        /// case whose columns fit is an issue.
        func validLayout(windowHeight: Double, sourceLocation: SourceLocation = #_sourceLocation) -> (any SectionedLayout, SectionReference)? {
            do {
                return try layout(windowHeight: windowHeight)
            } catch LayoutError.tooManyWindows {
                return nil
            } catch {
                Issue.record("valid case refused: \(error)", sourceLocation: sourceLocation)
                return nil
            }
        }

        func layout(windowHeight: Double) throws -> (any SectionedLayout, SectionReference) {
            let (width, columns, columnSpacing, rowSpacing, insets) = geometry
            let starts = SectionStart.runs(of: keys)
            switch style {
            case 0, 1, 2:
                let direction: RenderDirection = [.shortestFirst, .leftToRight, .rightToLeft][style]
                let waterfall = WaterfallLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing,
                                                insets: insets, extraHeight: 3, direction: direction)
                let rule: SectionReference.ColumnRule = [.shortest, .cyclic, .cyclicReversed][style]
                return (try Layout(items: items, sections: starts, sectioning: sectioning, style: waterfall, windowHeight: windowHeight),
                        SectionReference(items: items, keys: keys, width: width, columns: columns, columnSpacing: columnSpacing,
                                         rowSpacing: rowSpacing, insets: insets, rule: rule,
                                         cellHeight: { item, w in w * item.size.height / item.size.width + 3 }, sectioning: sectioning))
            case 3:
                let grid = GridLayout(width: width, columns: columns, columnSpacing: columnSpacing, rowSpacing: rowSpacing, insets: insets)
                return (try Layout(items: items, sections: starts, sectioning: sectioning, style: grid, windowHeight: windowHeight),
                        SectionReference(items: items, keys: keys, width: width, columns: columns, columnSpacing: columnSpacing,
                                         rowSpacing: rowSpacing, insets: insets, rule: .cyclic, cellHeight: { _, w in w }, sectioning: sectioning))
            default:
                let list = ListLayout(width: width, rowSpacing: rowSpacing, insets: insets)
                return (try Layout(items: items, sections: starts, sectioning: sectioning, style: list, windowHeight: windowHeight),
                        SectionReference(items: items, keys: keys, width: width, columns: 1, columnSpacing: 0, rowSpacing: rowSpacing,
                                         insets: insets, rule: .cyclic, cellHeight: { item, w in w * item.size.height / item.size.width },
                                         sectioning: sectioning))
            }
        }
    }

    static let cases = zip(
        zip(Gen.double(in: 1...4000), Gen.double(in: 1...4000), Gen.int(in: 0...3)).array(of: 1...160),
        zip(Gen.double(in: 0...60), Gen.double(in: 0...30), Gen.double(in: 0...40), Gen.int(in: 0...5), Gen.bool, Gen.double(in: 1...300)),
        zip(Gen.double(in: 120...1600), Gen.int(in: 1...24), Gen.double(in: 0...20), Gen.double(in: 0...20), Gen.double(in: 0...20)),
        Gen.int(in: 0...4)
    ).map { items, sectioning, geometry, style in
        // Keys: a run continues while the third value is not 0 (so some sections hold one item).
        var keys: [UInt64] = []
        var key: UInt64 = 7
        for (index, item) in items.enumerated() {
            if index > 0 && item.2 == 0 { key += 1 }
            keys.append(key)
        }
        let (header, footer, spacing, every, autoSpan, spanHeight) = sectioning
        return Case(items: items.enumerated().map { LayoutItem(id: Int64($0.offset) * 3 + 1, width: $0.element.0, height: $0.element.1) },
                    keys: keys,
                    sectioning: Sectioning(headerHeight: header < 15 ? 0 : header, footerHeight: footer < 10 ? 0 : footer, sectionSpacing: spacing,
                                           spanEvery: every, spanHeight: autoSpan ? .aspectRatio(extra: 2) : .fixed(spanHeight)),
                    geometry: (geometry.0, geometry.1, geometry.2, geometry.3, Insets(all: geometry.4)), style: style)
    }

    @Test func framesAndBandsEqualTheReference_pinnedOrNot() async {
        var checked = 0
        await propertyCheck(count: 200, input: Self.cases, Gen.double(in: 64...3000), Gen.double(in: -0.05...1.05).array(of: 10),
                            Gen.double(in: 1...1500)) { test, windowHeight, starts, bandHeight in
            guard test.columnsFit, let (layout, reference) = test.validLayout(windowHeight: windowHeight) else { return }
            checked += 1
            #expect(abs(layout.contentHeight - reference.contentHeight) <= 1e-6)
            let all = layout.placements(in: -1..<(reference.contentHeight + 1), pinning: false)
            #expect(all.count == reference.placements.count)
            for (attributes, placement) in zip(all, reference.placements) where !placement.matches(attributes) {
                Issue.record("layout \(attributes), reference \(placement)")
                return
            }
            for start in starts + reference.placements.prefix(8).map({ $0.rect.y / max(1, reference.contentHeight) }) {
                let y = start * reference.contentHeight
                let band = y..<(y + bandHeight)
                for pinning in [false, true] {
                    let got = layout.placements(in: band, pinning: pinning)
                    let want = reference.placements(in: band, pinning: pinning)
                    #expect(got.count == want.count && zip(got, want).allSatisfy { $1.matches($0) }, "band \(band) pinning \(pinning): \(got) vs \(want)")
                }
            }
        }
        #expect(checked > 0, "no generated case was laid out")
    }

    @Test func theArchiveAnswersAsTheTable_andAppendsContinueIt() async {
        var checked = 0
        await propertyCheck(count: 120, input: Self.cases, Gen.double(in: 64...2000), Gen.double(in: 0...1).array(of: 6),
                            Gen.double(in: 0...1)) { test, windowHeight, starts, cut in
            guard test.columnsFit, let (layout, reference) = test.validLayout(windowHeight: windowHeight) else { return }
            checked += 1
            let archive = layout.archive
            guard let header = try? LayoutArchiveHeader(bytes: archive.header) else {
                Issue.record("the archive's header does not read back")
                return
            }
            #expect(header.version == 2)
            for start in starts {
                let band = (start * reference.contentHeight)..<(start * reference.contentHeight + 700)
                let windows = header.windows(for: band).map { Array(archive.windows[$0]) } ?? []
                for pinning in [false, true] {
                    let decoded = try? header.items(in: band, windows: windows, pinningHeaders: pinning)
                    #expect(decoded == layout.placements(in: band, pinning: pinning), "band \(band)")
                }
            }
            // Cut the items in two: the first part laid out and archived, the rest appended to
            // the table read back from the archive, must equal the whole laid out at once.
            let split = Int(cut * Double(test.items.count))
            var first = test
            first.items = Array(test.items[..<split])
            first.keys = Array(test.keys[..<split])
            // A first part of a case laid out whole reaches no further: it is never refused.
            guard let (part, _) = try? first.layout(windowHeight: windowHeight) else {
                Issue.record("the first \(split) items could not be laid out")
                return
            }
            let rest = Array(test.items[split...])
            let restStarts = SectionStart.runs(of: test.keys[split...])
            guard let extended = try? part.readingBackAndAppending(rest, sections: restStarts) else {
                Issue.record("an archived layout with sections could not be extended")
                return
            }
            #expect(extended.placements(in: -1..<(reference.contentHeight + 1), pinning: false)
                    == layout.placements(in: -1..<(reference.contentHeight + 1), pinning: false))
            #expect(extended.archive == layout.archive, "appending gives the same bytes as laying out at once")
        }
        #expect(checked > 0, "no generated case was laid out")
    }

    /// The presentation styles' mixed grid: three square columns, every fourth item across the
    /// width, 112 points tall, line spacing 20, item spacing 8, insets 16, 16, 20, 16.
    @Test func theMixedGridFrameByFrame() throws {
        let items = (0..<9).map { LayoutItem(id: Int64($0), width: 100, height: 100) }
        let grid = GridLayout(width: 375, columns: 3, columnSpacing: 8, rowSpacing: 20, insets: Insets(top: 16, left: 16, bottom: 20, right: 16))
        let layout = try Layout(items: items, sections: [SectionStart(offset: 0, key: 0)],
                                sectioning: Sectioning(spanEvery: 4, spanHeight: .fixed(112)), style: grid)
        let frames = layout.items(in: 0..<10_000).map(\.frame)
        #expect(frames == [
            Rect(x: 16, y: 16, width: 343, height: 112),
            Rect(x: 16, y: 148, width: 109, height: 109), Rect(x: 133, y: 148, width: 109, height: 109), Rect(x: 250, y: 148, width: 109, height: 109),
            Rect(x: 16, y: 277, width: 343, height: 112),
            Rect(x: 16, y: 409, width: 109, height: 109), Rect(x: 133, y: 409, width: 109, height: 109), Rect(x: 250, y: 409, width: 109, height: 109),
            Rect(x: 16, y: 538, width: 343, height: 112),
        ])
        #expect(layout.contentHeight == 670)
    }

    /// Two sections of a 2-column grid (square cells 104 high), headers 30, no footers,
    /// spacing 10: section 0's header 0-30, rows 38-142 and 150-254; section 1 from 264.
    @Test func aPinnedHeaderStaysAtTheTop_andIsPushedUpByTheNext() throws {
        let grid = GridLayout(width: 216, columns: 2, columnSpacing: 8, rowSpacing: 8, insets: Insets(all: 0))
        let items = (0..<6).map { LayoutItem(id: Int64($0), width: 1, height: 1) }
        let layout = try Layout(items: items, sections: [SectionStart(offset: 0, key: 2024_03), SectionStart(offset: 4, key: 2024_02)],
                                sectioning: Sectioning(headerHeight: 30, sectionSpacing: 10), style: grid)
        #expect(layout.sections.map(\.top) == [0, 264] && layout.sections.map(\.itemBottom) == [254, 406])
        func header(_ band: Range<Double>) -> LayoutAttributes? { layout.items(in: band, pinningHeaders: true).first { $0.kind == .header } }
        #expect(header(0..<100)?.frame.y == 0, "at the top: where it is")
        #expect(header(100..<200)?.frame.y == 100, "inside: at the band's top")
        #expect(header(100..<200)?.section == 0 && header(100..<200)?.id == Int64(2024_03))
        #expect(header(230..<330)?.frame.y == 224 && header(230..<330)?.section == 0, "at the hand-over: pushed up by its items' end")
        #expect(header(250..<350)?.frame.y == 224 && header(250..<350)?.section == 0)
        #expect(header(256..<356)?.section == 1 && header(256..<356)?.frame.y == 264, "past its items: the next one, where it is")
        #expect(header(270..<370)?.section == 1 && header(270..<370)?.frame.y == 270, "the next one takes over")
        #expect(layout.items(in: 100..<200).first { $0.kind == .header } == nil, "without pinning the header has scrolled away")
    }

    @Test func sectionsOfOneItem_andStartsThatDoNotDescribeSections() throws {
        let list = ListLayout(width: 100, rowSpacing: 4, insets: Insets(all: 2))
        let items = (0..<3).map { LayoutItem(id: Int64($0), width: 10, height: 10) }
        let layout = try Layout(items: items, sections: SectionStart.runs(of: [1, 2, 3] as [UInt64]),
                                sectioning: Sectioning(headerHeight: 20, footerHeight: 5, sectionSpacing: 6), style: list)
        #expect(layout.sections.map(\.itemCount) == [1, 1, 1])
        #expect(layout.items(in: 0..<1000).map(\.kind) == [.header, .cell, .footer, .header, .cell, .footer, .header, .cell, .footer])
        for starts in [[SectionStart(offset: 1, key: 1)], [SectionStart(offset: 0, key: 1), SectionStart(offset: 2, key: 1)],
                       [SectionStart(offset: 0, key: 1), SectionStart(offset: 3, key: 2)], [SectionStart(offset: 0, key: 1), SectionStart(offset: 0, key: 2)]] {
            #expect(throws: LayoutError.self) { try Layout(items: items, sections: starts, sectioning: Sectioning(), style: list) }
        }
        #expect(SectionStart.runs(of: [] as [UInt64]).isEmpty && SectionStart.runs(of: [5, 5, 6, 5] as [UInt64]).map(\.offset) == [0, 2, 3])
        var edited = layout
        #expect(throws: LayoutError.editRequiresRecomputation) { try edited.insert([items[0]], at: 1) }
        #expect(throws: LayoutError.editRequiresRecomputation) { try edited.remove(0..<1) }
    }

    @Test func anAppendToTheLastSectionContinuesIt_andANewKeyOpensAnother() throws {
        let grid = GridLayout(width: 216, columns: 2, columnSpacing: 8, rowSpacing: 8, insets: Insets(all: 0))
        let items = (0..<5).map { LayoutItem(id: Int64($0), width: 1, height: 1) }
        let sectioning = Sectioning(headerHeight: 30, footerHeight: 12, sectionSpacing: 10)
        let whole = try Layout(items: items, sections: [SectionStart(offset: 0, key: 1), SectionStart(offset: 3, key: 2)], sectioning: sectioning, style: grid)
        var appended = try Layout(items: Array(items[..<2]), sections: [SectionStart(offset: 0, key: 1)], sectioning: sectioning, style: grid)
        try appended.append([items[2]]) // the same section
        try appended.append(Array(items[3...]), sections: [SectionStart(offset: 0, key: 2)])
        #expect(appended.items(in: 0..<10_000) == whole.items(in: 0..<10_000))
        #expect(appended.sections == whole.sections)
        #expect(appended.archive == whole.archive)
    }

    /// An append changes the sections in place (a copy would cost each append the whole
    /// layout's sections and spans); an item it refuses puts back everything it changed: spans,
    /// a reopened section's footer and end, window starts.
    @Test(arguments: [false, true])
    func aRefusedItemLeavesTheLayoutAsItWas_andTheSameAppendThenContinuesIt(newSection: Bool) throws {
        let style = WaterfallLayout(width: 375, columns: 3)
        // A footer fifteen windows tall: the layout's windows reach well past its columns, and the
        // refused appends write column starts into those windows before they stop.
        let sectioning = Sectioning(headerHeight: 30, footerHeight: 1500, sectionSpacing: 10, spanEvery: 4)
        let items = (0..<90).map { (index: Int) -> LayoutItem in
            let width = 100 + index * 37 % 300
            let height = 100 + index * 53 % 400
            return LayoutItem(id: Int64(index + 1), width: Double(width), height: Double(height))
        }
        let starts = [SectionStart(offset: 0, key: 1), SectionStart(offset: 25, key: 2)] + (newSection ? [SectionStart(offset: 50, key: 3)] : [])
        let whole = try Layout(items: items, sections: starts, sectioning: sectioning, style: style, windowHeight: 100)
        var layout = try Layout(items: Array(items[..<40]), sections: Array(starts[..<2]), sectioning: sectioning, style: style, windowHeight: 100)
        let (archive, sections, windowStarts) = (layout.archive, layout.sections, layout.table.windowStarts)
        let rest = Array(items[40...])
        let restStarts = [SectionStart(offset: 0, key: 2)] + (newSection ? [SectionStart(offset: 10, key: 3)] : [])
        for refusedAt in [0, 3, 12, 49] { // the first, a span's neighbour, past a new section, the last
            var bad = rest
            bad[refusedAt] = LayoutItem(id: 999, width: 0, height: 5)
            #expect(throws: LayoutError.invalidItemSize(index: 40 + refusedAt, size: Size(width: 0, height: 5))) {
                try layout.append(bad, sections: restStarts)
            }
            #expect(layout.count == 40 && layout.sections == sections && layout.archive == archive, "refused at \(refusedAt)")
            // Exactly, even where the archive cannot tell: starts past a column's end.
            #expect(layout.table.windowStarts == windowStarts, "refused at \(refusedAt)")
        }
        try layout.append(rest, sections: restStarts)
        #expect(layout.archive == whole.archive)
        #expect(layout.items(in: 0..<100_000) == whole.items(in: 0..<100_000))
    }
}

/// What the tests ask of a layout with sections, whatever its style.
protocol SectionedLayout {
    var contentHeight: Double { get }
    var archive: LayoutArchive { get }
    func placements(in band: Range<Double>, pinning: Bool) -> [LayoutAttributes]
    /// Reads the layout back from its archive and appends `items` to it.
    func readingBackAndAppending(_ items: [LayoutItem], sections: [SectionStart]) throws -> any SectionedLayout
}

extension Layout: SectionedLayout {
    var archive: LayoutArchive { table.archive() }
    func placements(in band: Range<Double>, pinning: Bool) -> [LayoutAttributes] { items(in: band, pinningHeaders: pinning) }
    func readingBackAndAppending(_ items: [LayoutItem], sections: [SectionStart]) throws -> any SectionedLayout {
        var layout = try Layout(table: PlacementTable(archive: table.archive()), style: style)
        try layout.append(items, sections: sections)
        return layout
    }
}
