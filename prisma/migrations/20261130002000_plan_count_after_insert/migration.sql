-- ============================================================================================
-- HAND-WRITTEN: an entity create's plan-limit check reads the team's count after its INSERT.
--
-- app_team_record_count_for_create ran before the INSERT: a plpgsql function that looked the table
-- up in pg_trigger, upserted the team's record_versions row and locked it FOR UPDATE, one round trip
-- before the INSERT's own statement trigger would have. With a finite plan (bench S14, 100k tasks) a
-- create cost +1.2 ms of PostgreSQL CPU and the team's creates waited on each other that much longer
-- (0.69 of the unlimited plan's creates/s). The INSERT's statement trigger already renews the row's
-- `records` under that same lock, held until commit; reading it in the next statement gives the
-- count with this create in and every racing create committed before it (READ COMMITTED: a new
-- snapshot per statement), and a refusal rolls the INSERT and its count back. So the count is one
-- read for usage and for creates alike, and the lock-taking function goes (with the `live_only`
-- argument neither reads: the triggers count live rows of soft-deleting tables).
-- ============================================================================================
DROP FUNCTION app_team_record_count_for_create(text, uuid, boolean, integer);
DROP FUNCTION app_team_record_count(text, uuid, boolean);

-- A team's records in a table, for plan usage and limits: the count its writes keep, for the caller's own teams only.
CREATE FUNCTION app_team_record_count(tbl text, team uuid) RETURNS integer
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT COALESCE((SELECT records FROM record_versions WHERE table_name = tbl AND team_id = team AND team = ANY (ARRAY(SELECT app_user_team_ids()))), 0) $$;
REVOKE EXECUTE ON FUNCTION app_team_record_count(text, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_team_record_count(text, uuid) TO app_user;
