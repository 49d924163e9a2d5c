-- CreateTable
CREATE TABLE "orders" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "number" TEXT,
    "customer_id" UUID NOT NULL,
    "status" TEXT,
    "paid_at" TIMESTAMPTZ(3),
    "lines" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "orders_team_id_created_at_idx" ON "orders"("team_id", "created_at");

-- CreateIndex
CREATE INDEX "orders_number_idx" ON "orders" USING GIN ("number" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "orders_team_id_customer_id_idx" ON "orders"("team_id", "customer_id");

-- CreateIndex
CREATE INDEX "orders_customer_id_idx" ON "orders"("customer_id");

-- CreateIndex
CREATE INDEX "orders_team_id_status_idx" ON "orders"("team_id", "status");

-- CreateIndex
CREATE INDEX "orders_team_id_paid_at_idx" ON "orders"("team_id", "paid_at");

-- CreateIndex
CREATE UNIQUE INDEX "orders_team_id_number_key" ON "orders"("team_id", "number");

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
-- ============================================================================================
-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`): row-level security
-- of the new entity tables. Everything above this line is generated from the Prisma schema.
-- ============================================================================================

-- orders (shared in the team)
GRANT SELECT, INSERT, UPDATE, DELETE ON "orders" TO app_user;
ALTER TABLE "orders" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "orders" FORCE ROW LEVEL SECURITY;
CREATE POLICY orders_select ON "orders" FOR SELECT USING ((team_id IN (SELECT app_user_team_ids())));
CREATE POLICY orders_insert ON "orders" FOR INSERT WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND user_id = app_current_user_id());
CREATE POLICY orders_update ON "orders" FOR UPDATE USING (team_id IN (SELECT app_user_writable_team_ids())) WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()));
CREATE POLICY orders_delete ON "orders" FOR DELETE USING (team_id IN (SELECT app_user_writable_team_ids()));
CREATE TRIGGER orders_versions_insert AFTER INSERT ON "orders" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER orders_versions_update AFTER UPDATE ON "orders" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER orders_versions_delete AFTER DELETE ON "orders" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions();
CREATE TRIGGER orders_events AFTER INSERT OR UPDATE OR DELETE ON "orders" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event('orders', '', 'false');

-- Records of a team in an entity table, for plan limits: every member's rows, for the caller's own teams only.
CREATE OR REPLACE FUNCTION app_team_record_count(tbl text, team uuid, live_only boolean) RETURNS integer
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  EXECUTE format('SELECT count(*)::integer FROM %I WHERE team_id = $1' || CASE WHEN live_only THEN ' AND deleted_at IS NULL' ELSE '' END, tbl) INTO n USING team;
  RETURN n;
END $$;

