-- AlterTable
ALTER TABLE "record_versions" ADD COLUMN     "records" INTEGER NOT NULL DEFAULT 0;

-- ============================================================================================
-- HAND-WRITTEN: a team's records in an entity table, kept on the row its writes renew anyway, so
-- that a plan limit's check on create is one row read whatever the team holds.
--
-- app_team_record_count_for_create counted up to limit + 1 rows while holding the team's
-- record_versions row FOR UPDATE: with a limit of 1,000,000 and 100k tasks, 100k index entries read
-- per create, creates into one team one at a time behind that count (bench S14 with a finite plan:
-- 0.52× Directus). The statement triggers that renew a team's version now also add what the
-- statement changed in the team's live records (rows gained minus rows lost; on a soft-deleting
-- table a soft delete loses one and a restore gains one), under the same row lock, in the same
-- transaction: a rolled-back write changes nothing, and creates racing at the limit still count one
-- after the other (the check takes the lock first, then reads the count its predecessors committed).
-- TRUNCATE (no row triggers) forgets the table's counts and versions alike.
-- ============================================================================================

CREATE OR REPLACE FUNCTION app_bump_record_versions() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  -- The trigger's argument: 'soft' when the table soft-deletes (a row with deleted_at set is not a record any more).
  soft constant boolean := TG_NARGS > 0 AND TG_ARGV[0] = 'soft';
  direction constant integer := CASE TG_OP WHEN 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  -- Teams in a stable order (two statements touching the same teams never wait on each other in a
  -- cycle); a team being deleted is skipped (its rows go with it, and its versions by cascade).
  IF TG_OP = 'UPDATE' AND soft THEN
    INSERT INTO record_versions AS v (table_name, team_id, records)
    SELECT TG_TABLE_NAME, d.team_id, sum(d.n)::integer
      FROM (SELECT team_id, (deleted_at IS NULL)::integer AS n FROM changed
            UNION ALL SELECT team_id, -(deleted_at IS NULL)::integer FROM old_rows) d
     WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = d.team_id)
     GROUP BY d.team_id ORDER BY d.team_id
    ON CONFLICT (table_name, team_id) DO UPDATE SET version = nextval(pg_get_serial_sequence('record_versions', 'version')), records = v.records + EXCLUDED.records;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO record_versions AS v (table_name, team_id, records)
    SELECT TG_TABLE_NAME, d.team_id, sum(d.n)::integer
      FROM (SELECT team_id, 1 AS n FROM changed UNION ALL SELECT team_id, -1 FROM old_rows) d
     WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = d.team_id)
     GROUP BY d.team_id ORDER BY d.team_id
    ON CONFLICT (table_name, team_id) DO UPDATE SET version = nextval(pg_get_serial_sequence('record_versions', 'version')), records = v.records + EXCLUDED.records;
  ELSIF soft THEN
    INSERT INTO record_versions AS v (table_name, team_id, records)
    SELECT TG_TABLE_NAME, c.team_id, direction * (count(*) FILTER (WHERE c.deleted_at IS NULL))::integer FROM changed c
     WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = c.team_id)
     GROUP BY c.team_id ORDER BY c.team_id
    ON CONFLICT (table_name, team_id) DO UPDATE SET version = nextval(pg_get_serial_sequence('record_versions', 'version')), records = v.records + EXCLUDED.records;
  ELSE
    INSERT INTO record_versions AS v (table_name, team_id, records)
    SELECT TG_TABLE_NAME, c.team_id, direction * count(*)::integer FROM changed c
     WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = c.team_id)
     GROUP BY c.team_id ORDER BY c.team_id
    ON CONFLICT (table_name, team_id) DO UPDATE SET version = nextval(pg_get_serial_sequence('record_versions', 'version')), records = v.records + EXCLUDED.records;
  END IF;
  RETURN NULL;
END $$;

-- TRUNCATE empties the table without row triggers: every team's count is 0 and its totals stale.
CREATE FUNCTION app_forget_record_counts() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  UPDATE record_versions SET records = 0, version = nextval(pg_get_serial_sequence('record_versions', 'version')) WHERE table_name = TG_TABLE_NAME;
  RETURN NULL;
END $$;

-- The entity tables so far: their version triggers again, with the table's kind and, on UPDATE, the
-- rows as they were; a TRUNCATE trigger; and their counts as the rows stand now.
DO $$
DECLARE
  t text;
  kind text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.tgname = c.relname || '_versions_insert' ORDER BY 1 LOOP
    kind := CASE WHEN EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = format('%I', t)::regclass AND attname = 'deleted_at' AND NOT attisdropped) THEN 'soft' ELSE 'hard' END;
    EXECUTE format('DROP TRIGGER %I ON %I', t || '_versions_insert', t);
    EXECUTE format('DROP TRIGGER %I ON %I', t || '_versions_update', t);
    EXECUTE format('DROP TRIGGER %I ON %I', t || '_versions_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(%L)', t || '_versions_insert', t, kind);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(%L)', t || '_versions_update', t, kind);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(%L)', t || '_versions_delete', t, kind);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION app_forget_record_counts()', t || '_versions_truncate', t);
    EXECUTE format(
      'INSERT INTO record_versions (table_name, team_id, records) SELECT %L, team_id, count(*)::integer FROM %I WHERE %s AND team_id IN (SELECT id FROM teams) GROUP BY team_id
       ON CONFLICT (table_name, team_id) DO UPDATE SET records = EXCLUDED.records',
      t, t, CASE kind WHEN 'soft' THEN 'deleted_at IS NULL' ELSE 'true' END);
  END LOOP;
END $$;

-- A team's records in a table, for plan usage: the count its writes keep, for the caller's own teams only.
CREATE OR REPLACE FUNCTION app_team_record_count(tbl text, team uuid, live_only boolean) RETURNS integer
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT CASE WHEN team IN (SELECT app_user_team_ids()) THEN COALESCE((SELECT records FROM record_versions WHERE table_name = tbl AND team_id = team), 0) ELSE 0 END $$;

-- On create: the count once the team's creates into the table before this one have committed (the
-- row's lock, taken first, orders them), at most `at_most`.
CREATE OR REPLACE FUNCTION app_team_record_count_for_create(tbl text, team uuid, live_only boolean, at_most integer) RETURNS integer
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  -- Entity tables only: those whose writes keep record versions.
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(format('%I', tbl)) AND tgname = tbl || '_versions_insert') THEN
    RAISE EXCEPTION 'app_team_record_count_for_create: % is not an entity table', tbl;
  END IF;
  -- The row exists once the team has written the table; a team being deleted is skipped, as by the trigger.
  INSERT INTO record_versions (table_name, team_id) SELECT tbl, team WHERE EXISTS (SELECT 1 FROM teams WHERE id = team)
    ON CONFLICT (table_name, team_id) DO NOTHING;
  SELECT records INTO n FROM record_versions WHERE table_name = tbl AND team_id = team FOR UPDATE;
  RETURN LEAST(COALESCE(n, 0), at_most);
END $$;
