-- Order data (SQLite's 0003): for each item order, the items' ids and display sizes in that
-- order, packed in chunks, so a layout of a new configuration reads a few thousand blobs
-- instead of every item row, and a server keeps them in memory by chunk id (a chunk is never
-- changed: a refresh deletes it and writes new ones). Kept by the transactions that change the
-- items (or, for changes too scattered to merge mid-scan, rebuilt when the scan ends);
-- `order_data.generation` says which catalog generation it reflects, and a reader uses it
-- only when that is the catalog's. Each chunk also keeps where its sections start (SQLite's
-- 0006), so a layout with sections reads no item row either.

CREATE TABLE order_data (
    id integer PRIMARY KEY CHECK (id = 1),
    generation bigint NOT NULL,           -- the catalog generation the chunks reflect; -1: never built
    max_item_id bigint NOT NULL           -- items with a larger id were added since
);
INSERT INTO order_data (id, generation, max_item_id)
    SELECT 1, CASE WHEN EXISTS (SELECT FROM items) THEN -1 ELSE generation END, 0 FROM catalog;

-- A chunk of an order: the items from its first entry's sort key (lo_date, lo_key) up to the
-- next chunk's, as `count` entries of 16 bytes: id (int8), width, height (int4), big-endian
-- (int8send, int4send).
CREATE TABLE order_chunks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    item_order text NOT NULL CHECK (item_order IN ('date', 'path')),
    lo_date text COLLATE "C" NOT NULL,    -- the first entry's sort_date ('' in path order)
    lo_key bytea NOT NULL,                -- the first entry's key
    count integer NOT NULL CHECK (count > 0),
    entries bytea NOT NULL,
    -- The entries (offsets in the chunk) whose month differs from the entry before, and those
    -- months (YYYYMM of the sort date; 0 for a date without one), then the same for the parent
    -- folder (the key's bytes up to its last '/'; empty without one). The first entry always
    -- starts a run; a reader joins runs of equal keys across chunks.
    month_starts integer[] NOT NULL,
    months bigint[] NOT NULL,
    folder_starts integer[] NOT NULL,
    folders bytea[] NOT NULL
);
CREATE INDEX order_chunks_in_order ON order_chunks (item_order, lo_date DESC, lo_key);

-- Where changed and removed items were in the orders: the chunks a refresh must merge again.
CREATE TABLE order_changes (
    sort_date text COLLATE "C" NOT NULL,
    key bytea NOT NULL
);

CREATE FUNCTION note_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO order_changes (sort_date, key) VALUES (OLD.sort_date, OLD.key);
    ELSIF OLD.key IS DISTINCT FROM NEW.key OR OLD.sort_date IS DISTINCT FROM NEW.sort_date
            OR OLD.width <> NEW.width OR OLD.height <> NEW.height THEN
        INSERT INTO order_changes (sort_date, key) VALUES (OLD.sort_date, OLD.key), (NEW.sort_date, NEW.key);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER items_order_change AFTER UPDATE OF key, sort_date, width, height OR DELETE ON items
    FOR EACH ROW EXECUTE FUNCTION note_order_change();
