-- The failed files are few, and read apart: `catalog errors` lists them, and every scan's
-- summary counts them ("failing"). A partial index holds only their rows, by path, so neither
-- reads the whole files table.
CREATE INDEX files_failed ON files (path) WHERE status = 2;
