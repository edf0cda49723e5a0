-- The change-log and order-change triggers of 0001 and 0003 ran their PL/pgSQL function for
-- every row an update touched, to find most rows unchanged inside it: importing 1,000,000
-- unchanged rows again queued and ran 2,000,000 calls. The update triggers now say in WHEN what
-- the functions check (evaluated before an event is queued, as SQLite's triggers do); the
-- deletes, which always log, keep triggers of their own (a WHEN of a DELETE trigger cannot name
-- NEW). The functions are unchanged.

DROP TRIGGER items_change_log ON items;
DROP TRIGGER items_order_change ON items;

CREATE TRIGGER items_change_log_update AFTER UPDATE OF key, sort_date, width, height ON items
    FOR EACH ROW
    WHEN (OLD.key IS DISTINCT FROM NEW.key OR OLD.sort_date IS DISTINCT FROM NEW.sort_date
          OR OLD.width <> NEW.width OR OLD.height <> NEW.height)
    EXECUTE FUNCTION log_item_change();
CREATE TRIGGER items_change_log_delete AFTER DELETE ON items
    FOR EACH ROW EXECUTE FUNCTION log_item_change();

CREATE TRIGGER items_order_change_update AFTER UPDATE OF key, sort_date, width, height ON items
    FOR EACH ROW
    WHEN (OLD.key IS DISTINCT FROM NEW.key OR OLD.sort_date IS DISTINCT FROM NEW.sort_date
          OR OLD.width <> NEW.width OR OLD.height <> NEW.height)
    EXECUTE FUNCTION note_order_change();
CREATE TRIGGER items_order_change_delete AFTER DELETE ON items
    FOR EACH ROW EXECUTE FUNCTION note_order_change();
