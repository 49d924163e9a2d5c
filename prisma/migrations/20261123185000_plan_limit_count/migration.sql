-- ============================================================================================
-- HAND-WRITTEN: plan limits on entity records (tasks, customers), checked on create at a cost the
-- plan's limit bounds, not the team's table, and never passed by creates racing at the limit.
--
-- app_team_record_count counted every row of the team on every create: with 100k tasks an index
-- scan of ~4-8 ms per create (bench S14: 1k → 100k tasks took creates from 119/s to 72/s). Whether
-- one more row fits under a limit of N needs at most N + 1 rows counted.
--
-- Two creates counting at the same moment both saw room for one more (a limit of 5 with 3 tasks let
-- 6 of 12 concurrent creates pass). The count now first takes the lock every write of the team's rows
-- in that table takes anyway, until its transaction ends: the team's record_versions row, renewed by
-- the statement trigger (record_versions migration). Creates of one team into one table are then
-- counted one after the other, each after the rows of those before it committed (a VOLATILE function:
-- each of its statements reads with a new snapshot). No new lock order: a transaction that already
-- wrote the table holds the lock, and one that has not takes it before its insert would.
-- ============================================================================================

CREATE FUNCTION app_team_record_count_for_create(tbl text, team uuid, live_only boolean, at_most integer) RETURNS integer
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  -- Entity tables only: those whose writes renew record versions.
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(format('%I', tbl)) AND tgname = tbl || '_versions_insert') THEN
    RAISE EXCEPTION 'app_team_record_count_for_create: % is not an entity table', tbl;
  END IF;
  -- The row exists once the team has written the table; a team being deleted is skipped, as by the trigger.
  INSERT INTO record_versions (table_name, team_id) SELECT tbl, team WHERE EXISTS (SELECT 1 FROM teams WHERE id = team)
    ON CONFLICT (table_name, team_id) DO NOTHING;
  PERFORM 1 FROM record_versions WHERE table_name = tbl AND team_id = team FOR UPDATE;
  EXECUTE format('SELECT count(*)::integer FROM (SELECT 1 FROM %I WHERE team_id = $1' || CASE WHEN live_only THEN ' AND deleted_at IS NULL' ELSE '' END || ' LIMIT $2) AS counted', tbl)
    INTO n USING team, at_most;
  RETURN n;
END $$;

REVOKE EXECUTE ON FUNCTION app_team_record_count_for_create(text, uuid, boolean, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_team_record_count_for_create(text, uuid, boolean, integer) TO app_user;
