-- CreateTable
CREATE TABLE "record_history" (
    "id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "entity" TEXT NOT NULL,
    "record_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "operation" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "changed_fields" TEXT[],
    "owner_id" UUID,
    "actor_user_id" UUID,
    "actor_key_id" UUID,
    "face" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "record_history_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "record_history_entity_created_at_idx" ON "record_history"("entity", "created_at");

-- CreateIndex
CREATE INDEX "record_history_team_id_idx" ON "record_history"("team_id");

-- CreateIndex
CREATE UNIQUE INDEX "record_history_entity_record_id_version_key" ON "record_history"("entity", "record_id", "version");

-- AddForeignKey
ALTER TABLE "record_history" ADD CONSTRAINT "record_history_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- HAND-WRITTEN: record history is written and read through row-level security as the caller. A
-- version is seen by members of its team, and a private record's versions by its creator alone (as
-- the record itself); it is written by writers of the team as themselves; nobody changes or removes
-- one through the app role (the history sweep and a team's deletion do, as the system).
GRANT SELECT, INSERT ON "record_history" TO app_user;
ALTER TABLE "record_history" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "record_history" FORCE ROW LEVEL SECURITY;
CREATE POLICY record_history_select ON "record_history" FOR SELECT
  USING (team_id IN (SELECT app_user_team_ids()) AND (owner_id IS NULL OR owner_id = app_current_user_id()));
CREATE POLICY record_history_insert ON "record_history" FOR INSERT
  WITH CHECK (team_id IN (SELECT app_user_writable_team_ids()) AND (owner_id IS NULL OR owner_id = app_current_user_id()) AND actor_user_id = app_current_user_id());
