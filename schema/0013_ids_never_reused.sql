-- Tags, trips and rules never give an id out twice.  SQLite gives a new
-- row the largest id plus one, so the id of the newest row, once deleted,
-- went to the next row anybody made; and ids are remembered after their
-- row is gone: a rule run's snapshot names the tags and trip of each row
-- (a revert put a deleted tag or trip back by id, now another user's),
-- and a run keeps its rule's id (apply-all took a new rule of the same id
-- for the deleted one and skipped the rows it had seen).
--
-- id_high_water holds the largest id each table has given out; the
-- library inserts with the next one (tag.c, trip.c, rule.c, csv_import.c)
-- and the triggers keep the mark for rows inserted any other way.  (What
-- AUTOINCREMENT does, but that needs the tables rebuilt, which with
-- foreign keys on would rewrite or cascade into every table naming them.)
CREATE TABLE id_high_water (
    name  TEXT PRIMARY KEY,
    last  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO id_high_water (name, last) VALUES
    ('tags', COALESCE((SELECT MAX(id) FROM tags), 0)),
    ('trips', COALESCE((SELECT MAX(id) FROM trips), 0)),
    ('rules', MAX(COALESCE((SELECT MAX(id) FROM rules), 0),
                  COALESCE((SELECT MAX(rule_id) FROM rule_runs), 0)));
CREATE TRIGGER tags_high_water AFTER INSERT ON tags BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'tags' AND last < NEW.id;
END;
CREATE TRIGGER trips_high_water AFTER INSERT ON trips BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'trips' AND last < NEW.id;
END;
CREATE TRIGGER rules_high_water AFTER INSERT ON rules BEGIN
    UPDATE id_high_water SET last = NEW.id WHERE name = 'rules' AND last < NEW.id;
END;
