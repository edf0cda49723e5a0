import CatalogLayout

/// Justified rows written out naively from the text: each row's height recomputed from
/// all its items at every step, every frame kept, every query a scan.
struct JustifiedReference {
    struct Placement: Equatable, CustomStringConvertible {
        var kind: LayoutAttributes.Kind
        var index: Int
        var section: Int
        var rect: Rect
        var description: String { "\(kind) \(index) s\(section) \(rect)" }

        func matches(_ a: LayoutAttributes) -> Bool {
            a.kind == kind && a.index == index && a.section == section && abs(a.frame.x - rect.x) <= 1e-6 && abs(a.frame.y - rect.y) <= 1e-6
                && abs(a.frame.width - rect.width) <= 1e-6 && abs(a.frame.height - rect.height) <= 1e-6
        }
    }

    var placements: [Placement] = []
    var contentHeight = 0.0
    var sections: [(top: Double, itemBottom: Double)] = []
    let headerHeight: Double

    init(items: [LayoutItem], keys: [UInt64]?, style s: JustifiedLayout, sectioning: Sectioning?) {
        headerHeight = sectioning?.headerHeight ?? 0
        let available = s.width - s.insets.left - s.insets.right
        let target = s.rowHeight
        let keys = keys ?? Array(repeating: 0, count: items.count)
        var runs: [Range<Int>] = []
        var first = 0
        for index in items.indices where index + 1 == items.count || keys[index + 1] != keys[index] {
            runs.append(first..<(index + 1))
            first = index + 1
        }
        var previousEnd: Double?
        for (section, run) in runs.enumerated() {
            let top = previousEnd.map { $0 + (sectioning?.sectionSpacing ?? 0) } ?? s.insets.top
            var y = top
            if let h = sectioning?.headerHeight, h > 0 {
                placements.append(Placement(kind: .header, index: section, section: section, rect: Rect(x: s.insets.left, y: top, width: available, height: h)))
                y = top + h + s.rowSpacing
            }
            func height(_ row: [Int]) -> Double {
                (available - Double(row.count - 1) * s.spacing) / row.map { items[$0].size.width / items[$0].size.height }.reduce(0, +)
            }
            func emit(_ row: [Int], _ h: Double) {
                var x = s.insets.left
                for index in row {
                    let w = items[index].size.width / items[index].size.height * h
                    placements.append(Placement(kind: .cell, index: index, section: section, rect: Rect(x: x, y: y, width: w, height: h)))
                    x = x + w + s.spacing
                }
                y = y + h + s.rowSpacing
            }
            var row: [Int] = []
            var lastBottom = y
            for index in run {
                row.append(index)
                let h = height(row)
                guard h <= target else { continue }
                if row.count > 1 {
                    let without = height(Array(row.dropLast()))
                    if h <= 0 || abs(without - target) <= abs(h - target) {
                        emit(Array(row.dropLast()), without)
                        lastBottom = y - s.rowSpacing
                        row = [index]
                        let alone = height(row)
                        if alone <= target {
                            emit(row, alone)
                            lastBottom = y - s.rowSpacing
                            row = []
                        }
                        continue
                    }
                }
                emit(row, h)
                lastBottom = y - s.rowSpacing
                row = []
            }
            if !row.isEmpty {
                emit(row, target)
                lastBottom = y - s.rowSpacing
            }
            var end = lastBottom
            if let f = sectioning?.footerHeight, f > 0 {
                placements.append(Placement(kind: .footer, index: section, section: section,
                                            rect: Rect(x: s.insets.left, y: lastBottom + s.rowSpacing, width: available, height: f)))
                end = lastBottom + s.rowSpacing + f
            }
            sections.append((top, lastBottom))
            previousEnd = end
        }
        if sectioning == nil { placements = placements.map { var p = $0; p.section = 0; return p } }
        contentHeight = (previousEnd ?? s.insets.top) + s.insets.bottom
    }

    func placements(in band: Range<Double>, pinning: Bool) -> [Placement] {
        guard !band.isEmpty else { return [] }
        var found = placements.filter { $0.rect.y < band.upperBound && $0.rect.y + $0.rect.height > band.lowerBound }
        guard pinning, headerHeight > 0, let section = sections.indices.last(where: { sections[$0].top <= band.lowerBound }),
              band.lowerBound < sections[section].itemBottom else { return found }
        var pinned = placements.first { $0.kind == .header && $0.section == section }!
        pinned.rect.y = min(max(sections[section].top, band.lowerBound), sections[section].itemBottom - headerHeight)
        if let at = found.firstIndex(where: { $0.kind == .header && $0.section == section }) {
            found[at] = pinned
        } else {
            found.insert(pinned, at: found.firstIndex { $0.section >= section } ?? found.count)
        }
        return found
    }
}

/// The carousel, naively: every frame, effects from their definition, snapping by a scan.
struct CarouselReference {
    var frames: [Rect] = []
    var contentWidth: Double

    init(items: [LayoutItem], style: CarouselLayout) {
        var x = style.insets.left
        for item in items {
            let w = item.size.width / item.size.height * style.itemHeight
            frames.append(Rect(x: x, y: style.insets.top, width: w, height: style.itemHeight))
            x = x + w + style.spacing
        }
        contentWidth = (frames.last.map { $0.x + $0.width } ?? style.insets.left) + style.insets.right
    }

    func indices(in band: Range<Double>) -> [Int] {
        frames.indices.filter { !band.isEmpty && frames[$0].x < band.upperBound && frames[$0].x + frames[$0].width > band.lowerBound }
    }

    func snap(proposed: Double, velocity: Double, viewport: Double) -> (Double, Int)? {
        guard !frames.isEmpty else { return nil }
        let target = proposed + viewport / 2
        let centres = frames.map { $0.x + $0.width / 2 }
        var candidates = Array(frames.indices)
        if velocity > 0 { candidates = candidates.filter { centres[$0] >= target } }
        if velocity < 0 { candidates = candidates.filter { centres[$0] <= target } }
        if candidates.isEmpty { candidates = [velocity > 0 ? frames.count - 1 : 0] }
        let index = candidates.min { abs(centres[$0] - target) < abs(centres[$1] - target) || (abs(centres[$0] - target) == abs(centres[$1] - target) && $0 < $1) }!
        return (min(max(0, centres[index] - viewport / 2), max(0, contentWidth - viewport)), index)
    }
}
