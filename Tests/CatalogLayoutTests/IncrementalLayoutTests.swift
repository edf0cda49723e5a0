import CatalogLayout
import PropertyBased
import Testing

/// Appends, inserts, removals and replacements must leave exactly what a full computation
/// over the edited list gives: frames bit for bit, and the same answers to queries.
@Suite struct IncrementalLayoutTests {
    enum Edit: CaseIterable { case append, insert, remove, replace }

    func expectIdentical<S>(_ edited: Layout<S>, _ full: Layout<S>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(edited.count == full.count, sourceLocation: sourceLocation)
        #expect(edited.contentHeight == full.contentHeight, sourceLocation: sourceLocation)
        #expect(edited.table.windowCount == full.table.windowCount, sourceLocation: sourceLocation)
        let mismatch = (0..<min(edited.count, full.count)).first { edited.attributes(at: $0) != full.attributes(at: $0) }
        #expect(mismatch == nil, "first differing item: \(mismatch.map(String.init) ?? "")", sourceLocation: sourceLocation)
        #expect(edited.table.archive() == full.table.archive(), "windows differ", sourceLocation: sourceLocation)
        for step in stride(from: 0.0, to: full.contentHeight + 500, by: max(1, full.contentHeight / 37)) {
            #expect(edited.items(in: step..<(step + 812)) == full.items(in: step..<(step + 812)), sourceLocation: sourceLocation)
        }
    }

    @Test func randomEditsEqualAFullRecomputation() async {
        let sizes = zip(Gen.double(in: 10...500), Gen.double(in: 10...500))
        await propertyCheck(count: 80, input: sizes.array(of: 0...2500), Gen.int(in: 1...20), Gen<RenderDirection>.case,
                            zip(Gen<Edit>.case, Gen.double(in: 0...1), sizes.array(of: 1...40)).array(of: 1...6)) {
            initial, columns, direction, edits in
            let style = WaterfallLayout(width: 800, columns: columns, direction: direction)
            var nextID: Int64 = 0
            func make(_ sizes: [(Double, Double)]) -> [LayoutItem] {
                sizes.map { nextID += 1; return LayoutItem(id: nextID, width: $0.0, height: $0.1) }
            }
            var items = make(initial)
            guard var layout = try? Layout(items: items, style: style, windowHeight: 700, checkpointInterval: 64) else {
                Issue.record("layout refused")
                return
            }
            for (edit, where_, newSizes) in edits {
                let new = make(newSizes)
                let at = Int(where_ * Double(items.count))
                do {
                    switch edit {
                    case .append:
                        try layout.append(new)
                        items += new
                    case .insert:
                        try layout.insert(new, at: at)
                        items.insert(contentsOf: new, at: at)
                    case .remove:
                        let range = at..<min(items.count, at + new.count)
                        try layout.remove(range)
                        items.removeSubrange(range)
                    case .replace:
                        guard at < items.count else { continue }
                        try layout.replace(at: at, with: new[0])
                        items[at] = new[0]
                    }
                } catch {
                    Issue.record("\(edit) at \(at) failed: \(error)")
                    return
                }
                guard let full = try? Layout(items: items, style: style, windowHeight: 700, checkpointInterval: 64) else {
                    Issue.record("the edited items were refused when laid out at once")
                    return
                }
                expectIdentical(layout, full)
            }
        }
    }

    @Test func appendContinuesFromColumnBottoms_andEditsCheckIndices() throws {
        let style = WaterfallLayout(width: 375, columns: 2)
        let first = (0..<5000).map { (i: Int) -> LayoutItem in
            LayoutItem(id: Int64(i), width: Double(100 + i % 37), height: Double(100 + i % 91))
        }
        let second = (5000..<5100).map { (i: Int) -> LayoutItem in LayoutItem(id: Int64(i), width: 120, height: Double(50 + i % 13)) }
        var layout = try Layout(items: first, style: style)
        try layout.append(second)
        expectIdentical(layout, try Layout(items: first + second, style: style))
        #expect(throws: LayoutError.indexOutOfRange(index: 5101, count: 5100)) { try layout.insert(second, at: 5101) }
        #expect(throws: LayoutError.indexOutOfRange(index: 5100, count: 5100)) { try layout.replace(at: 5100, with: second[0]) }
        #expect(throws: LayoutError.invalidItemSize(index: 5100, size: Size(width: -1, height: 1))) {
            try layout.append([LayoutItem(id: 9, width: -1, height: 1)])
        }
        #expect(layout.count == 5100, "a refused edit changes nothing")
    }

    /// Sizes are checked while items are placed: a batch refused far into it (past checkpoints
    /// and windows) leaves the layout as it was, and a height that overflows is refused too
    /// rather than reaching windows without end.
    @Test func whenAnItemFarIntoABatchIsRefused_thenTheLayoutIsAsBefore() throws {
        let style = WaterfallLayout(width: 375, columns: 3)
        let first = (0..<700).map { (i: Int) -> LayoutItem in LayoutItem(id: Int64(i), width: Double(90 + i % 41), height: Double(60 + i % 83)) }
        var layout = try Layout(items: first, style: style, windowHeight: 500, checkpointInterval: 64)
        let before = layout
        var batch = (700..<1900).map { (i: Int) -> LayoutItem in LayoutItem(id: Int64(i), width: 100, height: Double(40 + i % 29)) }
        let refusals: [(offset: Int, size: Size)] = [
            (1100, Size(width: .nan, height: 3)), (1199, Size(width: 1e-300, height: 1e300)), (0, Size(width: 4, height: .infinity)),
        ]
        for (offset, bad) in refusals {
            var refused = batch
            refused[offset] = LayoutItem(id: -1, width: bad.width, height: bad.height)
            // Not `throws: LayoutError.invalidItemSize(…)`: a NaN size never equals itself.
            #expect {
                try layout.append(refused)
            } throws: { error in
                guard case .invalidItemSize(let index, let size)? = error as? LayoutError else { return false }
                let same = size.width.bitPattern == bad.width.bitPattern && size.height.bitPattern == bad.height.bitPattern
                return index == 700 + offset && same
            }
            // The message says which of the two is wrong: a side, or how far apart the sides are.
            let message = LayoutError.invalidItemSize(index: 700 + offset, size: bad).description
            #expect(message.contains("so far apart") == (bad.width == 1e-300), "\(message)")
            expectIdentical(layout, before)
            #expect(layout.table.windowCount == before.table.windowCount)
        }
        try layout.append(batch)
        batch.insert(contentsOf: first, at: 0)
        let full = try Layout(items: batch, style: style, windowHeight: 500, checkpointInterval: 64)
        expectIdentical(layout, full)
    }
}
