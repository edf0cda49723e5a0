-- Change sets across generations (SQLite's 0007): the largest item id when each generation
-- ended, so a change set tells the items added since a generation from those it had; and the
-- order the changes were logged in, since an item changed twice in one generation has its
-- state at the generation before in the first of its rows. Pruned with the log.

CREATE TABLE generations (
    generation bigint PRIMARY KEY,
    max_item_id bigint NOT NULL
);

ALTER TABLE item_changes ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
