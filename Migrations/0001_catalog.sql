-- The catalog: items, the files behind them, scan roots, and a generation number that every
-- change to the items increments (stored layouts and change sets are keyed by it).

CREATE TABLE catalog (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
INSERT INTO catalog (id) VALUES (1);

-- Folders given to `catalog scan`.
CREATE TABLE roots (
    id INTEGER PRIMARY KEY,
    path BLOB NOT NULL UNIQUE,
    last_scanned_at TEXT,
    last_scan_complete INTEGER NOT NULL DEFAULT 0
);

-- Every item: an image file found by a scan (key = its path, as bytes) or a row brought by
-- `catalog import` (key = the import key, UTF-8). AUTOINCREMENT: an id is never reused.
CREATE TABLE items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key BLOB NOT NULL UNIQUE,
    source INTEGER NOT NULL CHECK (source IN (0, 1)),  -- 0 scanned file, 1 import
    format TEXT,                                        -- 'jpeg', 'png'; NULL for imports
    pixel_width INTEGER NOT NULL CHECK (pixel_width > 0),
    pixel_height INTEGER NOT NULL CHECK (pixel_height > 0),
    orientation INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
    width INTEGER NOT NULL CHECK (width > 0),           -- display size, after orientation
    height INTEGER NOT NULL CHECK (height > 0),
    bytes INTEGER,
    capture_date TEXT,                                  -- EXIF or imported date, ISO 8601
    modified_at TEXT,                                   -- file modification time, UTC
    imported_at TEXT,
    sort_date TEXT NOT NULL,                            -- capture date, else modified, else imported
    url TEXT,
    title TEXT,
    changed_generation INTEGER NOT NULL
);
CREATE INDEX items_by_date ON items (sort_date DESC, key ASC);

-- Every regular file a scan has seen under a root, image or not: what makes a rescan skip
-- files whose (device, inode, size, mtime) did not change.
CREATE TABLE files (
    path BLOB PRIMARY KEY,
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fingerprint INTEGER,                                -- of the first and last 4 KiB: moves across inodes
    status INTEGER NOT NULL CHECK (status IN (0, 1, 2)), -- 0 image, 1 unsupported, 2 failed
    item_id INTEGER REFERENCES items(id) ON DELETE SET NULL,
    error TEXT
) WITHOUT ROWID;
CREATE INDEX files_by_item ON files (item_id);
