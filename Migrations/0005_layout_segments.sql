-- Stored layouts keep their windows in segments: one row per run of up to 64 consecutive
-- windows instead of one row per window, so storing a 10M-item layout writes thousands of
-- large rows, not hundreds of thousands of small ones. A segment's blob begins with a
-- directory (per window: where its bytes end, its smallest and largest item index), so a page
-- reads the directory and its one or two windows with incremental blob reads, never the rest.
-- Stored layouts are a cache of what the order data computes: the old windows are dropped
-- with their layouts, and the next page of each configuration computes it again.
DELETE FROM layouts;
DROP TABLE layout_windows;

CREATE TABLE layout_segments (
    id INTEGER PRIMARY KEY,               -- a rowid: incremental blob reads need one
    layout_id INTEGER NOT NULL REFERENCES layouts(id) ON DELETE CASCADE,
    first_window INTEGER NOT NULL,        -- the segment holds windows first_window ..< first_window + count
    window_count INTEGER NOT NULL CHECK (window_count BETWEEN 1 AND 64),
    min_index INTEGER NOT NULL,           -- smallest and largest item index in its windows
    max_index INTEGER NOT NULL,
    bytes BLOB NOT NULL,                  -- LayoutSegment: directory, then the windows' bytes
    UNIQUE (layout_id, first_window)
);
CREATE INDEX layout_segments_by_index ON layout_segments (layout_id, min_index, max_index);
