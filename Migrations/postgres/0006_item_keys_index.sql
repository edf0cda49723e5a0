-- A page that misses a server's page cache reads the keys of its windows' items by id
-- (StoredWindowKeys): the key, the web address and the title of a few dozen items spread over
-- the whole table, each a descent of the primary key and then a page of the table of its own,
-- whose row is deformed up to its last columns. This index holds those three columns beside
-- the id, so the database answers from the index alone (an index-only scan, once VACUUM, or
-- autovacuum after an import, has marked the table's pages all-visible): about half the
-- database's work a page.
--
-- Partial: a B-tree entry holds at most 2,704 bytes, and neither keys (paths), addresses nor
-- titles have a bound; an item whose three together take 2,000 bytes or more is left out of it
-- (an insert never fails for it), and read from the table instead. StoredWindowKeys.Packed.short
-- repeats this predicate word for word, which is how the planner knows the index applies.

CREATE INDEX items_keys ON items (id) INCLUDE (key, url, title)
    WHERE octet_length(key) + coalesce(octet_length(url), 0) + coalesce(octet_length(title), 0) < 2000;
