-- web_origins (0009) is kept by `catalog import`, the only writer of items.url, instead of by
-- triggers: the insert trigger's INSERT OR IGNORE ran once per imported row and cost as much
-- as the row's own upsert (issue #16, BENCHMARKS.md). The import works out each row's origin
-- and inserts the origins it has not inserted yet, in the same transaction as the rows. The
-- table and its rows stay; an origin still stays when its last item goes.

DROP TRIGGER items_web_origin_insert;
DROP TRIGGER items_web_origin_update;
DROP VIEW web_origin_of_items;
