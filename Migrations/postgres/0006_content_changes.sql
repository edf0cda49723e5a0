-- A change to an item that leaves its place and display size as they were (SQLite's 0015): a
-- new title or address, a file rewritten. Logged as kind 3 with the item's state before it,
-- listed by the change sets as an update; a stored layout is not laid out again for it.

ALTER TABLE item_changes DROP CONSTRAINT item_changes_kind_check;
ALTER TABLE item_changes ADD CONSTRAINT item_changes_kind_check CHECK (kind IN (1, 2, 3)); -- 3: content

CREATE FUNCTION log_item_content_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT enabled FROM change_log) THEN
        INSERT INTO item_changes (generation, item_id, kind, old_key, old_sort_date, old_width, old_height)
            SELECT generation, OLD.id, 3, OLD.key, OLD.sort_date, OLD.width, OLD.height FROM catalog;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER items_change_log_content
    AFTER UPDATE OF format, pixel_width, pixel_height, orientation, bytes, capture_date, modified_at, url, title ON items
    FOR EACH ROW
    WHEN (OLD.key = NEW.key AND OLD.sort_date = NEW.sort_date AND OLD.width = NEW.width AND OLD.height = NEW.height
          AND (OLD.format IS DISTINCT FROM NEW.format OR OLD.pixel_width <> NEW.pixel_width
               OR OLD.pixel_height <> NEW.pixel_height OR OLD.orientation <> NEW.orientation
               OR OLD.bytes IS DISTINCT FROM NEW.bytes OR OLD.capture_date IS DISTINCT FROM NEW.capture_date
               OR OLD.modified_at IS DISTINCT FROM NEW.modified_at OR OLD.url IS DISTINCT FROM NEW.url
               OR OLD.title IS DISTINCT FROM NEW.title))
    EXECUTE FUNCTION log_item_content_change();
