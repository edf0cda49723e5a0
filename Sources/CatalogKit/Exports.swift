// The command line and other programs import CatalogKit alone: the catalog's values
// (CatalogModel: items, orders, stats, errors) and the layout engine's (CatalogLayout: frames,
// insets, directions) and the thumbnailer's (Thumbnail, ThumbnailFormat, ThumbnailError) come
// with it. The SQLite store (and GRDB) stay inside.
@_exported public import CatalogLayout
@_exported public import CatalogModel
@_exported public import Thumbnailer
