-- CreateTable
CREATE TABLE "projects_tasks" (
    "record_id" UUID NOT NULL,
    "related_id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_tasks_pkey" PRIMARY KEY ("record_id","related_id")
);

-- CreateIndex
CREATE INDEX "projects_tasks_related_id_idx" ON "projects_tasks"("related_id");

-- AddForeignKey
ALTER TABLE "projects_tasks" ADD CONSTRAINT "projects_tasks_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects_tasks" ADD CONSTRAINT "projects_tasks_related_id_fkey" FOREIGN KEY ("related_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- ============================================================================================
-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`): row-level security
-- of the new entity tables. Everything above this line is generated from the Prisma schema.
-- ============================================================================================

-- projects.tasks ↔ tasks: links follow both records
GRANT SELECT, INSERT, DELETE ON "projects_tasks" TO app_user;
ALTER TABLE "projects_tasks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "projects_tasks" FORCE ROW LEVEL SECURITY;
CREATE POLICY projects_tasks_select ON "projects_tasks" FOR SELECT USING (record_id IN (SELECT id FROM "projects"));
CREATE POLICY projects_tasks_insert ON "projects_tasks" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND record_id IN (SELECT id FROM "projects") AND related_id IN (SELECT id FROM "tasks"));
CREATE POLICY projects_tasks_delete ON "projects_tasks" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()) AND record_id IN (SELECT id FROM "projects") AND related_id IN (SELECT id FROM "tasks"));

-- Records of a team in an entity table, for plan limits: every member's rows, for the caller's own teams only.
CREATE OR REPLACE FUNCTION app_team_record_count(tbl text, team uuid, live_only boolean) RETURNS integer
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  EXECUTE format('SELECT count(*)::integer FROM %I WHERE team_id = $1' || CASE WHEN live_only THEN ' AND deleted_at IS NULL' ELSE '' END, tbl) INTO n USING team;
  RETURN n;
END $$;

