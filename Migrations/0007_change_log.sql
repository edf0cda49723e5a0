-- The change log: what turns the order at one generation into the order at a later one
-- (`catalog changes`, GET /api/changes). Written by triggers in the same transaction as the
-- change itself, so the log never disagrees with the items.
--
-- An item added after generation G is one whose id is above what G's `max_item_id` was (ids
-- are never reused); an updated or removed item has a row per change with its state before
-- it, the first row after G giving its state at G. Items whose facts were rewritten unchanged
-- (a touched file) log nothing. Bounded: the rows of the last 1,000 generations at most, and
-- at most 1,000,000 rows, oldest generations pruned first (SQLiteStore.nextGeneration);
-- `kept_from` is the oldest generation the log still answers for.

CREATE TABLE change_log (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    kept_from INTEGER NOT NULL
);
INSERT INTO change_log (id, kept_from) SELECT 1, generation FROM catalog;

-- The largest item id ever given out when each generation ended.
CREATE TABLE generations (
    generation INTEGER PRIMARY KEY,
    max_item_id INTEGER NOT NULL
);

-- kind 1: updated (key, date or display size changed), 2: removed; the old_ columns are the
-- item's state just before this change.
CREATE TABLE item_changes (
    generation INTEGER NOT NULL,
    item_id INTEGER NOT NULL,
    kind INTEGER NOT NULL CHECK (kind IN (1, 2)),
    old_key BLOB NOT NULL,
    old_sort_date TEXT NOT NULL,
    old_width INTEGER NOT NULL,
    old_height INTEGER NOT NULL
);
CREATE INDEX item_changes_by_generation ON item_changes (generation);

CREATE TRIGGER items_change_log_update AFTER UPDATE OF key, sort_date, width, height ON items
WHEN old.key IS NOT new.key OR old.sort_date IS NOT new.sort_date OR old.width != new.width OR old.height != new.height
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 1, old.key, old.sort_date, old.width, old.height FROM catalog;
END;

CREATE TRIGGER items_change_log_delete AFTER DELETE ON items
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 2, old.key, old.sort_date, old.width, old.height FROM catalog;
END;
