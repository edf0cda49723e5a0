-- Layout segments and order chunks are written once and read whole, and their bytes (packed
-- integers and doubles) compress poorly: keep them out of line but uncompressed, so that
-- storing a layout of 10,000,000 items (about 200 MB) and reading the order data cost no pglz
-- on the way in or out. Takes effect for rows written from now on.

ALTER TABLE layout_segments ALTER COLUMN bytes SET STORAGE EXTERNAL;
ALTER TABLE order_chunks ALTER COLUMN entries SET STORAGE EXTERNAL;
