-- The failed files are few, and read apart: `catalog errors` lists them, and every scan's
-- summary counts them ("failing"). Each was a scan of the whole files table (15 ms at 100,000
-- files, 7 % of an unchanged rescan). A partial index holds only their rows, by path.
CREATE INDEX files_failed ON files (path) WHERE status = 2;
