-- Stored layouts move out of the catalog into a file of their own beside it, <catalog>.layouts
-- (its schema: Migrations/layouts/). They are a cache of what the order data computes, and
-- there they are written in 64 KiB pages under a rollback journal: a 10M-item layout (200 MB)
-- is written once, instead of in 4 KiB frames to this file's WAL and again by the checkpoint.
-- The layouts stored here go with their tables; the next page of each configuration computes
-- and stores it again. Nothing else is touched.
DROP TABLE main.layout_segments;
DROP TABLE main.layouts;
-- Which catalog the layout file belongs to: a layout file found beside a catalog it was not
-- made for (the catalog was replaced by another one) is emptied when the catalog is opened.
ALTER TABLE catalog ADD COLUMN layout_file_id TEXT NOT NULL DEFAULT '';
UPDATE catalog SET layout_file_id = lower(hex(randomblob(16)));
