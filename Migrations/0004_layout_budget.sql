-- How many bytes of stored layouts a catalog keeps: storing one past it removes the least
-- recently used others (`catalog layouts --budget`). 1 GiB: a few 10M-item layouts, or
-- dozens of 1M-item ones.
ALTER TABLE catalog ADD COLUMN layout_budget_bytes INTEGER NOT NULL DEFAULT 1073741824 CHECK (layout_budget_bytes >= 0);
