-- A file rewritten within the second of its last write, at the same byte size and pixel size,
-- is read again by a rescan (its nanosecond mtime in `files` changed) and counted as updated,
-- and its item takes the new generation as `changed_generation` (its thumbnail's version);
-- but none of the item's columns that 0015's trigger compares changed (`modified_at` holds
-- whole seconds), so no change set listed it and a client kept the old thumbnail. An item
-- whose `changed_generation` moves, in place and at its size, is logged as kind 3 now too.
-- Its state before the statement is logged, as before: the trigger fires on `items`, whose
-- old row is the state a client shows.

DROP TRIGGER items_change_log_content;

CREATE TRIGGER items_change_log_content
AFTER UPDATE OF format, pixel_width, pixel_height, orientation, bytes, capture_date, modified_at, url, title, changed_generation ON items
WHEN (SELECT enabled FROM change_log)
    AND old.key IS new.key AND old.sort_date IS new.sort_date AND old.width = new.width AND old.height = new.height
    AND (old.format IS NOT new.format OR old.pixel_width != new.pixel_width OR old.pixel_height != new.pixel_height
         OR old.orientation != new.orientation OR old.bytes IS NOT new.bytes OR old.capture_date IS NOT new.capture_date
         OR old.modified_at IS NOT new.modified_at OR old.url IS NOT new.url OR old.title IS NOT new.title
         OR old.changed_generation != new.changed_generation)
BEGIN
    INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
        SELECT generation, old.id, 3, old.key, old.sort_date, old.width, old.height FROM catalog;
END;
