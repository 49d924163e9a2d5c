-- CreateTable
CREATE TABLE "customers" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "account" INTEGER NOT NULL,
    "office" TEXT NOT NULL,
    "phone" TEXT,
    "sales_rep" TEXT,
    "visit_days" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "contact_days" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "metas" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_notes" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "parent_id" UUID NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customer_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "posts" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "status" TEXT,
    "excerpt" TEXT,
    "published_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "posts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "status" TEXT,
    "priority" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "due_date" DATE,
    "estimated_hours" DOUBLE PRECISION,
    "completed" BOOLEAN,
    "metas" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "customers_team_id_created_at_idx" ON "customers"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "customers_team_id_name_idx" ON "customers"("team_id", "name");

-- CreateIndex
CREATE INDEX "customers_team_id_office_idx" ON "customers"("team_id", "office");

-- CreateIndex
CREATE INDEX "customers_team_id_sales_rep_idx" ON "customers"("team_id", "sales_rep");

-- CreateIndex
CREATE INDEX "customers_visit_days_idx" ON "customers" USING GIN ("visit_days");

-- CreateIndex
CREATE INDEX "customers_contact_days_idx" ON "customers" USING GIN ("contact_days");

-- CreateIndex
CREATE UNIQUE INDEX "customers_team_id_account_key" ON "customers"("team_id", "account");

-- CreateIndex
CREATE INDEX "customer_notes_parent_id_created_at_idx" ON "customer_notes"("parent_id", "created_at");

-- CreateIndex
CREATE INDEX "customer_notes_team_id_created_at_idx" ON "customer_notes"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "posts_team_id_created_at_idx" ON "posts"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "posts_team_id_title_idx" ON "posts"("team_id", "title");

-- CreateIndex
CREATE INDEX "posts_team_id_status_idx" ON "posts"("team_id", "status");

-- CreateIndex
CREATE INDEX "posts_team_id_published_at_idx" ON "posts"("team_id", "published_at");

-- CreateIndex
CREATE UNIQUE INDEX "posts_team_id_slug_key" ON "posts"("team_id", "slug");

-- CreateIndex
CREATE INDEX "tasks_team_id_created_at_idx" ON "tasks"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "tasks_team_id_title_idx" ON "tasks"("team_id", "title");

-- CreateIndex
CREATE INDEX "tasks_team_id_status_idx" ON "tasks"("team_id", "status");

-- CreateIndex
CREATE INDEX "tasks_team_id_priority_idx" ON "tasks"("team_id", "priority");

-- CreateIndex
CREATE INDEX "tasks_tags_idx" ON "tasks" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "tasks_team_id_due_date_idx" ON "tasks"("team_id", "due_date");

-- CreateIndex
CREATE INDEX "tasks_team_id_estimated_hours_idx" ON "tasks"("team_id", "estimated_hours");

-- CreateIndex
CREATE INDEX "tasks_team_id_completed_idx" ON "tasks"("team_id", "completed");

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_notes" ADD CONSTRAINT "customer_notes_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_notes" ADD CONSTRAINT "customer_notes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_notes" ADD CONSTRAINT "customer_notes_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- ============================================================================================
-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`): row-level security
-- of the new entity tables. Everything above this line is generated from the Prisma schema.
-- ============================================================================================

-- customers (shared in the team)
GRANT SELECT, INSERT, UPDATE, DELETE ON "customers" TO app_user;
ALTER TABLE "customers" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "customers" FORCE ROW LEVEL SECURITY;
CREATE POLICY customers_select ON "customers" FOR SELECT USING ((team_id IN (SELECT app_user_team_ids())));
CREATE POLICY customers_insert ON "customers" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());
CREATE POLICY customers_update ON "customers" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids())) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY customers_delete ON "customers" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()));

-- customers → notes: follows the parent
GRANT SELECT, INSERT, UPDATE, DELETE ON "customer_notes" TO app_user;
ALTER TABLE "customer_notes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "customer_notes" FORCE ROW LEVEL SECURITY;
CREATE POLICY customer_notes_select ON "customer_notes" FOR SELECT USING (parent_id IN (SELECT id FROM "customers"));
CREATE POLICY customer_notes_insert ON "customer_notes" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id() AND parent_id IN (SELECT id FROM "customers"));
CREATE POLICY customer_notes_update ON "customer_notes" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids()) AND parent_id IN (SELECT id FROM "customers")) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY customer_notes_delete ON "customer_notes" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()) AND parent_id IN (SELECT id FROM "customers"));

-- posts (shared in the team), public when status = 'published' AND deleted_at IS NULL
GRANT SELECT, INSERT, UPDATE, DELETE ON "posts" TO app_user;
ALTER TABLE "posts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "posts" FORCE ROW LEVEL SECURITY;
CREATE POLICY posts_select ON "posts" FOR SELECT USING ((team_id IN (SELECT app_user_team_ids())) OR (status = 'published' AND deleted_at IS NULL));
CREATE POLICY posts_insert ON "posts" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());
CREATE POLICY posts_update ON "posts" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids())) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY posts_delete ON "posts" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()));

-- tasks (private to its creator)
GRANT SELECT, INSERT, UPDATE, DELETE ON "tasks" TO app_user;
ALTER TABLE "tasks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "tasks" FORCE ROW LEVEL SECURITY;
CREATE POLICY tasks_select ON "tasks" FOR SELECT USING ((team_id IN (SELECT app_user_team_ids()) AND user_id = app_current_user_id()));
CREATE POLICY tasks_insert ON "tasks" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());
CREATE POLICY tasks_update ON "tasks" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id()) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY tasks_delete ON "tasks" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());

-- Records of a team in an entity table, for plan limits: every member's rows, for the caller's own teams only.
CREATE OR REPLACE FUNCTION app_team_record_count(tbl text, team uuid, live_only boolean) RETURNS integer
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  EXECUTE format('SELECT count(*)::integer FROM %I WHERE team_id = $1' || CASE WHEN live_only THEN ' AND deleted_at IS NULL' ELSE '' END, tbl) INTO n USING team;
  RETURN n;
END $$;

