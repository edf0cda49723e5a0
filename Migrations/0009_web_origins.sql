-- The origins (scheme://host[:port]) of imported items' http(s) addresses, which the web gallery
-- loads images from: its Content-Security-Policy names them, and reading them must not scan
-- every item. Kept by triggers as items are added or their url changes; an origin stays when
-- its last item goes (the policy is then a little wider than needed, never narrower).

CREATE TABLE web_origins (
    origin TEXT PRIMARY KEY
) WITHOUT ROWID;

-- 'https://host:port/path?query' -> 'https://host:port': up to the first '/', '?' or '#' after
-- the scheme's '//'. SQLite has no regexp: the end is the smallest position of the three.
CREATE VIEW web_origin_of_items AS
    SELECT id, lower(substr(url, 1, length(scheme) + 2 + (
        SELECT coalesce(min(position), length(rest) + 1) - 1 FROM (
            SELECT nullif(instr(rest, '/'), 0) AS position UNION ALL
            SELECT nullif(instr(rest, '?'), 0) UNION ALL
            SELECT nullif(instr(rest, '#'), 0))
    ))) AS origin
    FROM (SELECT id, url, CASE WHEN lower(substr(url, 1, 8)) = 'https://' THEN 'https:' ELSE 'http:' END AS scheme,
                 substr(url, CASE WHEN lower(substr(url, 1, 8)) = 'https://' THEN 9 ELSE 8 END) AS rest
          FROM items
          WHERE lower(substr(url, 1, 7)) = 'http://' OR lower(substr(url, 1, 8)) = 'https://');

INSERT OR IGNORE INTO web_origins (origin) SELECT origin FROM web_origin_of_items;

CREATE TRIGGER items_web_origin_insert AFTER INSERT ON items
WHEN lower(substr(new.url, 1, 7)) = 'http://' OR lower(substr(new.url, 1, 8)) = 'https://'
BEGIN
    INSERT OR IGNORE INTO web_origins (origin) SELECT origin FROM web_origin_of_items WHERE id = new.id;
END;

CREATE TRIGGER items_web_origin_update AFTER UPDATE OF url ON items
WHEN lower(substr(new.url, 1, 7)) = 'http://' OR lower(substr(new.url, 1, 8)) = 'https://'
BEGIN
    INSERT OR IGNORE INTO web_origins (origin) SELECT origin FROM web_origin_of_items WHERE id = new.id;
END;
