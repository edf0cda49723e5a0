-- 0003 gained the chunks' section starts (month_starts, months, folder_starts, folders) an
-- hour after it first shipped, once 0004 had followed it: a catalog made in that hour has
-- chunks without them, and every scan and import that wrote order data failed on it ("column
-- "month_starts" of relation "order_chunks" does not exist"). Such a catalog gets the columns
-- now, its chunks dropped and its order data marked stale (-1): it is built again when the
-- catalog is opened after this migration. Any other catalog is left as it is.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM information_schema.columns
                   WHERE table_schema = current_schema() AND table_name = 'order_chunks' AND column_name = 'month_starts') THEN
        DELETE FROM order_chunks;
        ALTER TABLE order_chunks
            ADD COLUMN month_starts integer[] NOT NULL,
            ADD COLUMN months bigint[] NOT NULL,
            ADD COLUMN folder_starts integer[] NOT NULL,
            ADD COLUMN folders bytea[] NOT NULL;
        UPDATE order_data SET generation = -1 WHERE EXISTS (SELECT FROM items);
    END IF;
END
$$;
