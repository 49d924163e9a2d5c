-- DropIndex
DROP INDEX "tasks_team_id_completed_idx";

-- DropIndex
DROP INDEX "tasks_team_id_created_at_idx";

-- DropIndex
DROP INDEX "tasks_team_id_due_date_idx";

-- DropIndex
DROP INDEX "tasks_team_id_estimated_hours_idx";

-- DropIndex
DROP INDEX "tasks_team_id_priority_idx";

-- DropIndex
DROP INDEX "tasks_team_id_status_idx";

-- DropIndex
DROP INDEX "tasks_team_id_title_idx";

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_created_at_idx" ON "tasks"("team_id", "user_id", "created_at");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_title_idx" ON "tasks"("team_id", "user_id", "title");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_status_idx" ON "tasks"("team_id", "user_id", "status");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_priority_idx" ON "tasks"("team_id", "user_id", "priority");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_due_date_idx" ON "tasks"("team_id", "user_id", "due_date");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_estimated_hours_idx" ON "tasks"("team_id", "user_id", "estimated_hours");

-- CreateIndex
CREATE INDEX "tasks_team_id_user_id_completed_idx" ON "tasks"("team_id", "user_id", "completed");
