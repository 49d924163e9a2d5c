-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT,
    "budget" DOUBLE PRECISION,
    "customer_id" UUID,
    "parent_project_id" UUID,
    "milestone_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "projects_team_id_created_at_idx" ON "projects"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "projects_name_idx" ON "projects" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "projects_team_id_name_idx" ON "projects"("team_id", "name");

-- CreateIndex
CREATE INDEX "projects_team_id_status_idx" ON "projects"("team_id", "status");

-- CreateIndex
CREATE INDEX "projects_team_id_budget_idx" ON "projects"("team_id", "budget");

-- CreateIndex
CREATE INDEX "projects_team_id_customer_id_idx" ON "projects"("team_id", "customer_id");

-- CreateIndex
CREATE INDEX "projects_customer_id_idx" ON "projects"("customer_id");

-- CreateIndex
CREATE INDEX "projects_team_id_parent_project_id_idx" ON "projects"("team_id", "parent_project_id");

-- CreateIndex
CREATE INDEX "projects_parent_project_id_idx" ON "projects"("parent_project_id");

-- CreateIndex
CREATE INDEX "projects_milestone_id_idx" ON "projects"("milestone_id");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_parent_project_id_fkey" FOREIGN KEY ("parent_project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_milestone_id_fkey" FOREIGN KEY ("milestone_id") REFERENCES "tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;
-- ============================================================================================
-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`): row-level security
-- of the new entity tables. Everything above this line is generated from the Prisma schema.
-- ============================================================================================

-- projects (shared in the team)
GRANT SELECT, INSERT, UPDATE, DELETE ON "projects" TO app_user;
ALTER TABLE "projects" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "projects" FORCE ROW LEVEL SECURITY;
CREATE POLICY projects_select ON "projects" FOR SELECT USING ((team_id IN (SELECT app_user_team_ids())));
CREATE POLICY projects_insert ON "projects" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());
CREATE POLICY projects_update ON "projects" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids())) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY projects_delete ON "projects" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()));
CREATE TRIGGER projects_versions_insert AFTER INSERT ON "projects" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER projects_versions_update AFTER UPDATE ON "projects" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER projects_versions_delete AFTER DELETE ON "projects" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();

-- Records of a team in an entity table, for plan limits: every member's rows, for the caller's own teams only.
CREATE OR REPLACE FUNCTION app_team_record_count(tbl text, team uuid, live_only boolean) RETURNS integer
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  EXECUTE format('SELECT count(*)::integer FROM %I WHERE team_id = $1' || CASE WHEN live_only THEN ' AND deleted_at IS NULL' ELSE '' END, tbl) INTO n USING team;
  RETURN n;
END $$;

