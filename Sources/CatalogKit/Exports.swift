// The CLI and other clients import CatalogKit alone; the store's and the layout engine's
// value types come with it.
@_exported public import CatalogLayout
@_exported public import CatalogStore
