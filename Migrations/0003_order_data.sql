-- Order data: for each item order, the items' ids and display sizes in that order, packed in
-- chunks, so a layout of a new configuration reads a few large blobs instead of every item row.
-- Kept by the same transactions that change the items (or, for changes too scattered to merge
-- cheaply mid-scan, rebuilt when the scan ends); `order_data.generation` says which catalog
-- generation it reflects, and a reader uses it only when that is the catalog's.

CREATE TABLE order_data (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL,          -- the catalog generation the chunks reflect
    max_item_id INTEGER NOT NULL          -- items with a larger id were added since
);
-- -1: not built yet. An existing catalog gets its order data at its next scan or import.
INSERT INTO order_data (id, generation, max_item_id)
    SELECT 1, CASE WHEN (SELECT count(*) FROM items) = 0 THEN generation ELSE -1 END, 0 FROM catalog;

-- Chunk of an order: the items from its first entry's sort key (lo_date, lo_key) up to the
-- next chunk's, as `count` entries of 16 bytes: id (Int64), width, height (UInt32), little-endian.
CREATE TABLE order_chunks (
    item_order TEXT NOT NULL,             -- 'date' or 'path'
    lo_date TEXT NOT NULL,                -- the first entry's sort_date ('' in path order)
    lo_key BLOB NOT NULL,                 -- the first entry's key
    count INTEGER NOT NULL,
    entries BLOB NOT NULL,
    PRIMARY KEY (item_order, lo_date DESC, lo_key)
);

-- Where changed and removed items were in the orders: the chunks a refresh must merge again.
CREATE TABLE order_changes (
    sort_date TEXT NOT NULL,
    key BLOB NOT NULL
);

CREATE TRIGGER items_order_update AFTER UPDATE OF key, sort_date, width, height ON items
WHEN old.key IS NOT new.key OR old.sort_date IS NOT new.sort_date OR old.width != new.width OR old.height != new.height
BEGIN
    INSERT INTO order_changes (sort_date, key) VALUES (old.sort_date, old.key), (new.sort_date, new.key);
END;

CREATE TRIGGER items_order_delete AFTER DELETE ON items
BEGIN
    INSERT INTO order_changes (sort_date, key) VALUES (old.sort_date, old.key);
END;
