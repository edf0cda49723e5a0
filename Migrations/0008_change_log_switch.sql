-- A change too large to be worth a batch (an import of more than a tenth of the catalog, and of
-- more than 100,000 rows) is not logged row by row: the import turns the log off for its own
-- transaction and moves `kept_from` to its generation, so a client at an older generation is
-- told to reload, as it would be better off doing anyway. The triggers of 0007 look at the switch.

ALTER TABLE change_log ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;

DROP TRIGGER items_change_log_update;
DROP TRIGGER items_change_log_delete;

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
