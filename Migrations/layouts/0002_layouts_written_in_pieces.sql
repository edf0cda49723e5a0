-- A large layout is stored in several commits (SQLiteStore.saveLayout), so that readers of other
-- layouts wait for a few milliseconds at a time instead of the whole store. Until its last
-- commit, its row is marked with a random token of the process writing it: readers pass such
-- a row by, and a writer checks the mark before each commit (another writer of the same
-- configuration, or a `layouts --drop`, may have removed the row meanwhile). A row still marked
-- long after its last commit (`last_used_at`) was left by a writer that stopped, and goes.
ALTER TABLE layouts ADD COLUMN writer BLOB;
