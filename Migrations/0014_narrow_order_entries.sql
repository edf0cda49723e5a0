-- Order data in half the bytes: from this version on, a chunk's entries are narrow where they
-- fit (the chunk's smallest id, then 8 bytes an entry: the id less the smallest, the width and
-- the height) and wide (16 bytes an entry, as 0003 made them) where not; the blob's length says
-- which (OrderData.Entries). Nothing is rewritten: wide chunks read as they are and turn narrow
-- as scans and imports rewrite them. This migration only marks the catalog, so that an earlier
-- version, which reads wide chunks alone, refuses it as written by a newer version instead of
-- failing on its first narrow chunk.

UPDATE order_data SET max_item_id = max_item_id WHERE 0;
