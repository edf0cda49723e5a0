-- Precomputed layouts: one per configuration (style, parameters, sort), for the catalog
-- generation it was computed at. A page reads the header and the one or two windows it needs.
CREATE TABLE layouts (
    id INTEGER PRIMARY KEY,
    configuration TEXT NOT NULL UNIQUE,   -- canonical text of style, parameters and sort
    item_order TEXT NOT NULL,             -- 'date' or 'path': the order the layout follows
    generation INTEGER NOT NULL,          -- the catalog generation the layout reflects
    item_count INTEGER NOT NULL,
    content_height REAL NOT NULL,
    header BLOB NOT NULL,                 -- LayoutArchive header
    bytes INTEGER NOT NULL,               -- header plus windows
    compute_seconds REAL NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_used_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- Window k of a layout: every item that meets the band k × H ..< (k + 1) × H.
CREATE TABLE layout_windows (
    layout_id INTEGER NOT NULL REFERENCES layouts(id) ON DELETE CASCADE,
    window INTEGER NOT NULL,
    min_index INTEGER NOT NULL,           -- smallest and largest item index in the window:
    max_index INTEGER NOT NULL,           -- scroll-to-item finds its window by these
    bytes BLOB NOT NULL,
    PRIMARY KEY (layout_id, window)
) WITHOUT ROWID;
CREATE INDEX layout_windows_by_index ON layout_windows (layout_id, min_index);
