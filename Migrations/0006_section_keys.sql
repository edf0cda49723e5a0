-- Section keys in the order data: beside its entries, each chunk keeps the runs of its items'
-- month keys (YYYYMM of the sort date) and parent-folder keys (a 64-bit hash of the key up to
-- its last "/"), so a layout with sections (by year, month or folder) reads a few runs per
-- chunk instead of a date and a path per item. Chunks written before have none: the order data
-- is marked stale, and rebuilt with section keys when the catalog is next opened after this
-- migration (readers lay out from the item rows until then).

ALTER TABLE order_chunks ADD COLUMN sections BLOB;
UPDATE order_data SET generation = -1;
