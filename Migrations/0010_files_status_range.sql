-- The files table again, with `status BETWEEN 0 AND 2` in place of `status IN (0, 1, 2)`:
-- SQLite checks a three-value IN list in a CHECK through an ephemeral table that it opens and
-- closes on every insert, which cost a scan more than the row's own B-tree inserts (issue #16,
-- BENCHMARKS.md). Same columns, same keys, same rows; SQLite's documented table rebuild.

CREATE TABLE files_rebuilt (
    path BLOB PRIMARY KEY,
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fingerprint INTEGER,                                -- of the first and last 4 KiB: moves across inodes
    status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 2), -- 0 image, 1 unsupported, 2 failed
    item_id INTEGER REFERENCES items(id) ON DELETE SET NULL,
    error TEXT
) WITHOUT ROWID;

INSERT INTO files_rebuilt (path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error)
    SELECT path, root_id, device, inode, size, mtime_ns, fingerprint, status, item_id, error FROM files;

DROP TABLE files;
ALTER TABLE files_rebuilt RENAME TO files;
CREATE INDEX files_by_item ON files (item_id);
