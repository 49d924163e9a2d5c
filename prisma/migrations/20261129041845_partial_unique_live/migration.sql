-- DropIndex
DROP INDEX "posts_team_id_slug_key";

-- CreateIndex
CREATE UNIQUE INDEX "posts_team_id_slug_key" ON "posts"("team_id", "slug") WHERE ("deleted_at" IS NULL);
