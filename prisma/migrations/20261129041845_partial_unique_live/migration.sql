-- DropIndex
DROP INDEX "posts_team_id_slug_key";

-- CreateIndex
CREATE UNIQUE INDEX "posts_team_id_slug_key" ON "posts"("team_id", "slug") WHERE ("deleted_at" IS NULL);
-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`)
-- Deleting a media record follows the onDelete of the media fields that name it.
CREATE OR REPLACE FUNCTION app_media_deleted() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "customers" WHERE "logo_id" = OLD.id) THEN RAISE EXCEPTION 'media % is used by customers.logo (onDelete: restrict)', OLD.id USING ERRCODE = '23001'; END IF;
  UPDATE "orders" SET "attachment_id" = NULL, updated_at = now() WHERE "attachment_id" = OLD.id; -- orders.attachment
  UPDATE "posts" SET deleted_at = now() WHERE "cover_id" = OLD.id AND deleted_at IS NULL; -- posts.cover
  UPDATE "projects" SET "file_ids" = array_remove("file_ids", OLD.id), updated_at = now() WHERE "file_ids" @> ARRAY[OLD.id]; -- projects.files
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS media_deleted ON "media";
CREATE TRIGGER media_deleted AFTER UPDATE OF status ON "media" FOR EACH ROW WHEN (OLD.status = 'active' AND NEW.status = 'deleted') EXECUTE FUNCTION app_media_deleted();

