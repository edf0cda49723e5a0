@testable import CatalogKit
import CatalogLayout
import CatalogModel
import Foundation
import Testing

/// A layout stored before items were laid out within 1:1000 keeps its taller strips. When items
/// are added, extending it could pass the window bound where the layout computed now does not:
/// it is computed again instead, and pages are served.
@Suite struct StoredBeforeTheBoundsTests {
    @Test func anOldLayoutThatAnExtensionWouldTakePastTheBoundIsComputedAgain() throws {
        let library = try Library()
        let catalog = try library.catalog()
        _ = try catalog.importItems([ImportRow(line: 2, key: "strip", width: 1, height: 362_000, date: "2020-01-01T00:00:00")])
        let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: "width=375&cols=1"))
        // As a build before the clamp stored it: the strip 359 × 362,000 points tall, just inside
        // 65,536 windows of 2,048 points.
        let strip = try #require(try catalog.items(order: .date).first)
        let old = try configuration.compute([LayoutItem(id: strip.id, width: 1, height: 362_000)], sections: nil)
        let computed = Pager.Computed(table: old, header: old.archiveHeader(), generation: try catalog.generation(), previous: nil, seconds: 0)
        #expect(try Pager.save(computed, store: catalog.store, key: configuration.key, order: configuration.order) == .stored)
        // Twenty older items (after it in the order), each 1,000 times as tall as wide: the old layout extended
        // would reach 137 million points, past the bound; computed now, 7.5 million.
        _ = try catalog.importItems((0..<20).map {
            ImportRow(line: $0 + 2, key: "tall-\($0)", width: 1, height: 2_000, date: "2010-01-01T00:00:\(10 + $0)")
        })
        let page = try catalog.page(PageRequest(query: "width=375&cols=1"))
        #expect(page.source == .computed, "computed again, not extended")
        #expect(page.contentHeight < 8_000_000)
        #expect(page.items.first.map { $0.frame.height / $0.frame.width } == 1_000)
    }
}
