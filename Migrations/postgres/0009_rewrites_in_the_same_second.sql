-- A file rewritten within the second of its last write, at the same byte size and pixel size
-- (SQLite's 0017): read again and counted as updated, its item's `changed_generation` (its
-- thumbnail's version) moved, but no column that 0006's trigger compares changed, so no change
-- set listed it. An item whose `changed_generation` moves, in place and at its size, is logged
-- as kind 3 now too.

DROP TRIGGER items_change_log_content ON items;

CREATE TRIGGER items_change_log_content
    AFTER UPDATE OF format, pixel_width, pixel_height, orientation, bytes, capture_date, modified_at, url, title,
        changed_generation ON items
    FOR EACH ROW
    WHEN (OLD.key = NEW.key AND OLD.sort_date = NEW.sort_date AND OLD.width = NEW.width AND OLD.height = NEW.height
          AND (OLD.format IS DISTINCT FROM NEW.format OR OLD.pixel_width <> NEW.pixel_width
               OR OLD.pixel_height <> NEW.pixel_height OR OLD.orientation <> NEW.orientation
               OR OLD.bytes IS DISTINCT FROM NEW.bytes OR OLD.capture_date IS DISTINCT FROM NEW.capture_date
               OR OLD.modified_at IS DISTINCT FROM NEW.modified_at OR OLD.url IS DISTINCT FROM NEW.url
               OR OLD.title IS DISTINCT FROM NEW.title OR OLD.changed_generation <> NEW.changed_generation))
    EXECUTE FUNCTION log_item_content_change();
