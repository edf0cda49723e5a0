-- The layout file, <catalog>.layouts: the catalog's stored layouts, one per configuration, each
-- in segments of up to 64 windows (as Migrations/0002, 0004 and 0005 kept them in the catalog
-- until 0012). The catalog's readers attach it as `layout_store`; its own
-- migrations are recorded in its `migrations` table. It is a cache: deleting it loses only
-- the time to compute the layouts again.

-- The catalog this file belongs to (catalog.layout_file_id).
CREATE TABLE owner (
    catalog_id TEXT NOT NULL
);

CREATE TABLE layouts (
    id INTEGER PRIMARY KEY,
    configuration TEXT NOT NULL UNIQUE,   -- canonical text of style, parameters and sort
    item_order TEXT NOT NULL,             -- 'date' or 'path': the order the layout follows
    generation INTEGER NOT NULL,          -- the catalog generation the layout reflects
    item_count INTEGER NOT NULL,
    content_height REAL NOT NULL,
    header BLOB NOT NULL,                 -- LayoutArchive header
    bytes INTEGER NOT NULL,               -- header plus segments
    compute_seconds REAL NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_used_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- A segment's blob begins with a directory (per window: where its bytes end, its smallest and
-- largest item index), so a page reads the directory and its one or two windows with
-- incremental blob reads, never the rest.
CREATE TABLE layout_segments (
    id INTEGER PRIMARY KEY,               -- a rowid: incremental blob reads need one
    layout_id INTEGER NOT NULL,           -- layouts.id; the trigger below removes them with it
    first_window INTEGER NOT NULL,        -- the segment holds windows first_window ..< first_window + count
    window_count INTEGER NOT NULL CHECK (window_count BETWEEN 1 AND 64),
    min_index INTEGER NOT NULL,           -- smallest and largest item index in its windows
    max_index INTEGER NOT NULL,
    bytes BLOB NOT NULL,                  -- LayoutSegment: directory, then the windows' bytes
    UNIQUE (layout_id, first_window)
);
CREATE INDEX layout_segments_by_index ON layout_segments (layout_id, min_index, max_index);

-- A trigger, not a foreign key's cascade: an import turns foreign keys off, and a layout it
-- removes must not leave its segments behind (a new layout may be given the same id).
CREATE TRIGGER segments_go_with_their_layout AFTER DELETE ON layouts
BEGIN
    DELETE FROM layout_segments WHERE layout_id = old.id;
END;
