import CatalogLayout

/// The rules of sections, headers, footers and full-span items written out naively from the
/// issue's text, independent of the table: every placement kept in layout order, every query
/// a scan of all of them.
struct SectionReference {
    struct Placement: Equatable, CustomStringConvertible {
        var kind: LayoutAttributes.Kind
        var index: Int
        var section: Int
        var column: Int
        var rect: Rect

        var description: String { "\(kind) \(index) s\(section) c\(column) \(rect)" }
    }

    enum ColumnRule { case shortest, cyclic, cyclicReversed }

    var placements: [Placement] = []
    var contentHeight = 0.0
    /// Per section: top, item bottom, header height.
    var sections: [(top: Double, itemBottom: Double)] = []
    let headerHeight: Double

    init(items: [LayoutItem], keys: [UInt64], width: Double, columns: Int, columnSpacing: Double, rowSpacing: Double, insets: Insets,
         rule: ColumnRule, cellHeight: (LayoutItem, Double) -> Double, sectioning: Sectioning) {
        headerHeight = sectioning.headerHeight
        let contentWidth = width - insets.left - insets.right
        let w = (contentWidth - Double(columns - 1) * columnSpacing) / Double(columns)
        // Sections: runs of equal keys.
        var runs: [Range<Int>] = []
        var first = 0
        for index in items.indices where index + 1 == items.count || keys[index + 1] != keys[index] {
            runs.append(first..<(index + 1))
            first = index + 1
        }
        var previousEnd: Double?
        for (section, run) in runs.enumerated() {
            let top = previousEnd.map { $0 + sectioning.sectionSpacing } ?? insets.top
            var start = top
            if sectioning.headerHeight > 0 {
                placements.append(Placement(kind: .header, index: section, section: section, column: 0,
                                            rect: Rect(x: insets.left, y: top, width: contentWidth, height: sectioning.headerHeight)))
                start = top + sectioning.headerHeight + rowSpacing
            }
            var bottoms = [Double](repeating: start, count: columns)
            var occupied = [Bool](repeating: false, count: columns)
            var placedAnything = false
            var sinceReset = 0
            for (position, index) in run.enumerated() {
                let item = items[index]
                if sectioning.spanEvery > 0 && position % sectioning.spanEvery == 0 {
                    let y = placedAnything ? bottoms.max()! + rowSpacing : start
                    let h: Double = switch sectioning.spanHeight {
                    case .fixed(let fixed): fixed
                    case .aspectRatio(let extra): contentWidth * item.size.height / item.size.width + extra
                    }
                    placements.append(Placement(kind: .cell, index: index, section: section, column: 0,
                                                rect: Rect(x: insets.left, y: y, width: contentWidth, height: h)))
                    bottoms = Array(repeating: y + h, count: columns)
                    occupied = Array(repeating: true, count: columns)
                    sinceReset = 0
                } else {
                    let c: Int = switch rule {
                    case .shortest: bottoms.indices.min { bottoms[$0] < bottoms[$1] || (bottoms[$0] == bottoms[$1] && $0 < $1) }!
                    case .cyclic: sinceReset % columns
                    case .cyclicReversed: columns - 1 - sinceReset % columns
                    }
                    let y = occupied[c] ? bottoms[c] + rowSpacing : bottoms[c]
                    let h = cellHeight(item, w)
                    placements.append(Placement(kind: .cell, index: index, section: section, column: c,
                                                rect: Rect(x: insets.left + Double(c) * (w + columnSpacing), y: y, width: w, height: h)))
                    bottoms[c] = y + h
                    occupied[c] = true
                    sinceReset += 1
                }
                placedAnything = true
            }
            let itemBottom = bottoms.max()!
            var end = itemBottom
            if sectioning.footerHeight > 0 {
                placements.append(Placement(kind: .footer, index: section, section: section, column: 0,
                                            rect: Rect(x: insets.left, y: itemBottom + rowSpacing, width: contentWidth, height: sectioning.footerHeight)))
                end = itemBottom + rowSpacing + sectioning.footerHeight
            }
            sections.append((top, itemBottom))
            previousEnd = end
        }
        contentHeight = (previousEnd ?? insets.top) + insets.bottom
    }

    /// Every placement meeting the band by a positive height, in layout order; with pinning,
    /// the header of the section the band starts in at y = min(max(top, band top), item bottom − height).
    func placements(in band: Range<Double>, pinning: Bool) -> [Placement] {
        guard !band.isEmpty else { return [] }
        var found = placements.filter { $0.rect.y < band.upperBound && $0.rect.y + $0.rect.height > band.lowerBound }
        guard pinning, headerHeight > 0,
              let section = sections.indices.last(where: { sections[$0].top <= band.lowerBound }),
              band.lowerBound < sections[section].itemBottom else { return found }
        let header = placements.first { $0.kind == .header && $0.section == section }!
        var pinned = header
        pinned.rect.y = min(max(sections[section].top, band.lowerBound), sections[section].itemBottom - headerHeight)
        if let at = found.firstIndex(of: header) {
            found[at] = pinned
        } else {
            let at = found.firstIndex { placements.firstIndex(of: $0)! > placements.firstIndex(of: header)! } ?? found.count
            found.insert(pinned, at: at)
        }
        return found
    }
}

extension SectionReference.Placement {
    /// Whether `attributes` is this placement, frames to 1e-6.
    func matches(_ attributes: LayoutAttributes) -> Bool {
        let f = attributes.frame
        return attributes.kind == kind && attributes.index == index && attributes.section == section && attributes.column == column
            && abs(f.x - rect.x) <= 1e-6 && abs(f.y - rect.y) <= 1e-6 && abs(f.width - rect.width) <= 1e-6 && abs(f.height - rect.height) <= 1e-6
    }
}
