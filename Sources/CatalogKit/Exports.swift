// The CLI and other clients import CatalogKit alone; the store's value types come with it.
@_exported public import CatalogStore
