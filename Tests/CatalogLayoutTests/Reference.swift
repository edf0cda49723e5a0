import CatalogLayout

/// An independent, deliberately naive implementation of the layout rules, written from the
/// specification: explicit per-column item counts, every frame kept, every query a full scan.
struct Reference {
    struct Frame: Equatable {
        var column: Int
        var rect: Rect
    }

    var frames: [Frame] = []
    var contentHeight: Double

    /// columnFor(index, bottoms) picks the column; heightOf(item, columnWidth) the height.
    init(items: [LayoutItem], width: Double, columns: Int, columnSpacing: Double, rowSpacing: Double, insets: Insets,
         columnFor: (Int, [Double]) -> Int, heightOf: (LayoutItem, Double) -> Double) {
        let w = (width - insets.left - insets.right - Double(columns - 1) * columnSpacing) / Double(columns)
        var bottoms = [Double](repeating: insets.top, count: columns)
        var counts = [Int](repeating: 0, count: columns)
        for (index, item) in items.enumerated() {
            let c = columnFor(index, bottoms)
            let h = heightOf(item, w)
            let y = counts[c] > 0 ? bottoms[c] + rowSpacing : insets.top
            frames.append(Frame(column: c, rect: Rect(x: insets.left + Double(c) * (w + columnSpacing), y: y, width: w, height: h)))
            bottoms[c] = y + h
            counts[c] += 1
        }
        contentHeight = (items.isEmpty ? insets.top : bottoms.max()!) + insets.bottom
    }

    init(items: [LayoutItem], waterfall s: WaterfallLayout) {
        self.init(items: items, width: s.width, columns: s.columns, columnSpacing: s.columnSpacing, rowSpacing: s.rowSpacing,
                  insets: s.insets, columnFor: { index, bottoms in
                      switch s.direction {
                      case .shortestFirst: bottoms.indices.min { bottoms[$0] < bottoms[$1] || (bottoms[$0] == bottoms[$1] && $0 < $1) }!
                      case .leftToRight: index % s.columns
                      case .rightToLeft: s.columns - 1 - index % s.columns
                      }
                  }, heightOf: { item, w in w * item.size.height / item.size.width + s.extraHeight })
    }

    /// Every frame overlapping the band by a positive height: a scan of all of them.
    func indices(in band: Range<Double>) -> [Int] {
        frames.indices.filter { frames[$0].rect.y < band.upperBound && frames[$0].rect.y + frames[$0].rect.height > band.lowerBound && !band.isEmpty }
    }
}

/// Compares a layout's every frame with the reference's, to 1e-6.
func expectSameFrames<S>(_ layout: Layout<S>, _ reference: Reference, ids: [Int64]? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(layout.count == reference.frames.count, sourceLocation: sourceLocation)
    #expect(abs(layout.contentHeight - reference.contentHeight) <= 1e-6, sourceLocation: sourceLocation)
    for index in 0..<min(layout.count, reference.frames.count) {
        let a = layout.attributes(at: index)
        let r = reference.frames[index]
        let close = abs(a.frame.x - r.rect.x) <= 1e-6 && abs(a.frame.y - r.rect.y) <= 1e-6
            && abs(a.frame.width - r.rect.width) <= 1e-6 && abs(a.frame.height - r.rect.height) <= 1e-6
        guard a.column == r.column, close, a.index == index, ids.map({ $0[index] == a.id }) ?? true else {
            Issue.record("item \(index): layout \(a.column) \(a.frame), reference \(r.column) \(r.rect)", sourceLocation: sourceLocation)
            return
        }
    }
}

import Testing
