import CatalogLayout

/// A layout computed for one generation of the catalog and not stored yet: pages can be made
/// from it while it is stored (`Catalog.page(_:from:)`), so the first page of a configuration
/// never seen waits for its compute alone, not for its store too.
package struct ComputedLayout: Sendable {
    private(set) var computed: Pager.Computed
    let header: LayoutArchiveHeader
    package let configuration: LayoutConfiguration

    /// The catalog's generation it lays out.
    package var generation: Int64 { computed.generation }
    /// Its items.
    package var itemCount: Int { computed.table.count }

    /// The same layout without the stored windows of the layout it extends (which only its
    /// store needs): what to keep for pages.
    package var forPages: ComputedLayout {
        var copy = self
        copy.computed.previous?.windows = []
        return copy
    }

    init(_ computed: Pager.Computed, configuration: LayoutConfiguration) throws {
        self.computed = computed
        self.header = try LayoutArchiveHeader(bytes: computed.header)
        self.configuration = configuration
    }
}
