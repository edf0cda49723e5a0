-- A change to an item that leaves its place and display size as they were (a new title or
-- address from an import; a file rewritten: its format, pixel size, orientation, byte size or
-- times) was logged nowhere, so a client following the change sets (`catalog changes`, GET
-- /api/changes) never reloaded that item. It is logged now as kind 3, with the item's state
-- before it (which it leaves as it was), and listed as an update; a stored layout is not laid
-- out again for it (its place and size did not change).
--
-- SQLite cannot change a CHECK in place: the log is copied into a table that takes kind 3,
-- in its order, with the triggers that write it dropped meanwhile and made again.

DROP TRIGGER items_change_log_update;
DROP TRIGGER items_change_log_delete;

CREATE TABLE item_changes_new (
    generation INTEGER NOT NULL,
    item_id INTEGER NOT NULL,
    kind INTEGER NOT NULL CHECK (kind IN (1, 2, 3)), -- 1 moved or resized, 2 removed, 3 content
    old_key BLOB NOT NULL,
    old_sort_date TEXT NOT NULL,
    old_width INTEGER NOT NULL,
    old_height INTEGER NOT NULL
);
INSERT INTO item_changes_new (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
    SELECT generation, item_id, kind, old_key, old_sort_date, old_width, old_height FROM item_changes ORDER BY rowid;
DROP TABLE item_changes;
ALTER TABLE item_changes_new RENAME TO item_changes;
CREATE INDEX item_changes_by_generation ON item_changes (generation);

CREATE TRIGGER items_change_log_update AFTER UPDATE OF key, sort_date, width, height ON items
WHEN (SELECT enabled FROM change_log)
    AND (old.key IS NOT new.key OR old.sort_date IS NOT new.sort_date OR old.width != new.width OR old.height != new.height)
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 1, old.key, old.sort_date, old.width, old.height FROM catalog;
END;

CREATE TRIGGER items_change_log_delete AFTER DELETE ON items
WHEN (SELECT enabled FROM change_log)
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 2, old.key, old.sort_date, old.width, old.height FROM catalog;
END;

CREATE TRIGGER items_change_log_content
AFTER UPDATE OF format, pixel_width, pixel_height, orientation, bytes, capture_date, modified_at, url, title ON items
WHEN (SELECT enabled FROM change_log)
    AND old.key IS new.key AND old.sort_date IS new.sort_date AND old.width = new.width AND old.height = new.height
    AND (old.format IS NOT new.format OR old.pixel_width != new.pixel_width OR old.pixel_height != new.pixel_height
         OR old.orientation != new.orientation OR old.bytes IS NOT new.bytes OR old.capture_date IS NOT new.capture_date
         OR old.modified_at IS NOT new.modified_at OR old.url IS NOT new.url OR old.title IS NOT new.title)
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 3, old.key, old.sort_date, old.width, old.height FROM catalog;
END;
