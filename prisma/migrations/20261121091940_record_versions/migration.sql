-- CreateTable
CREATE TABLE "record_versions" (
    "table_name" TEXT NOT NULL,
    "team_id" UUID NOT NULL,
    "version" BIGSERIAL NOT NULL,

    CONSTRAINT "record_versions_pkey" PRIMARY KEY ("table_name","team_id")
);

-- CreateIndex
CREATE INDEX "record_versions_team_id_idx" ON "record_versions"("team_id");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_status_due_date_id_idx" ON "tasks"("team_id", "user_id", "status", "due_date", "id");

-- AddForeignKey
ALTER TABLE "record_versions" ADD CONSTRAINT "record_versions_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ============================================================================================
-- HAND-WRITTEN: record versions. A statement that writes an entity table gives each team whose
-- rows it touched a new version, from the column's sequence: sequences never hand out a value
-- twice, not even after a rollback, so a version names one committed state of a team's rows (or
-- a state no one will see again). LIST keeps exact totals with the version they were counted at.
-- The table is the functions' alone: app_user has no privilege on it.
-- ============================================================================================
ALTER TABLE "record_versions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "record_versions" FORCE ROW LEVEL SECURITY;

-- Teams in a stable order (two statements touching the same teams never wait on each other in a
-- cycle); a team being deleted is skipped (its rows go with it, and its versions by cascade).
CREATE FUNCTION app_bump_record_versions() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO record_versions AS v (table_name, team_id)
  SELECT TG_TABLE_NAME, t.team_id FROM (SELECT DISTINCT team_id FROM changed) t
   WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = t.team_id)
   ORDER BY t.team_id
  ON CONFLICT (table_name, team_id) DO UPDATE SET version = nextval(pg_get_serial_sequence('record_versions', 'version'));
  RETURN NULL;
END $$;

-- The version of a team's rows in a table, for members of the team (NULL for anyone else); 0
-- until the first write.
CREATE FUNCTION app_record_version(tbl text, team uuid) RETURNS bigint
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT COALESCE((SELECT version FROM record_versions WHERE table_name = tbl AND team_id = team), 0)
        WHERE team IN (SELECT app_user_team_ids()) $$;

-- The entity tables that exist so far (a new entity's migration adds its own, see rls.ts).
CREATE TRIGGER customers_versions_insert AFTER INSERT ON "customers" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER customers_versions_update AFTER UPDATE ON "customers" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER customers_versions_delete AFTER DELETE ON "customers" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER posts_versions_insert AFTER INSERT ON "posts" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER posts_versions_update AFTER UPDATE ON "posts" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER posts_versions_delete AFTER DELETE ON "posts" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER tasks_versions_insert AFTER INSERT ON "tasks" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER tasks_versions_update AFTER UPDATE ON "tasks" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER tasks_versions_delete AFTER DELETE ON "tasks" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
