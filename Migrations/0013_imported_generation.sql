-- An import marks every row of its input with its generation in `imported_generation`, whether
-- the row changes the item or not. A key seen twice in one input is refused by that mark, as
-- `changed_generation` did when every row was written; a row that leaves its item as it was no
-- longer moves `changed_generation`, so stored layouts stay current, clients are not told to
-- reload, and an import that changes nothing moves no generation. Rows imported before keep 0.

ALTER TABLE items ADD COLUMN imported_generation INTEGER NOT NULL DEFAULT 0;
