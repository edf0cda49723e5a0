-- Stored layouts churn: a server whose catalog changes replaces each configuration's segments
-- at every new generation a client asks for, and each replaced segment leaves a dead row (and
-- its bytes in the TOAST table) until a vacuum. At autovacuum's defaults (a fifth of a table
-- dead, and a cost delay between pages) the segments were reclaimed far too late: a soak of a
-- 20,000-item catalog under `serve --scan` grew the database past 3.4 GB in ten minutes against
-- a 1 GiB layout budget, with more than half the segment rows dead. Both tables are vacuumed
-- after a small share of dead rows now, and without the cost delay.
ALTER TABLE layout_segments SET (
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 64, autovacuum_vacuum_cost_delay = 0,
    toast.autovacuum_vacuum_scale_factor = 0.02, toast.autovacuum_vacuum_threshold = 64, toast.autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE layouts SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 64, autovacuum_vacuum_cost_delay = 0);
