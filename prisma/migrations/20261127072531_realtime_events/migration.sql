-- CreateTable
CREATE TABLE "entity_events" (
    "id" BIGSERIAL NOT NULL,
    "entity" TEXT NOT NULL,
    "record_id" UUID NOT NULL,
    "team_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "txid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint,
    "horizon" BIGINT NOT NULL DEFAULT ((pg_snapshot_xmin(pg_current_snapshot()))::text)::bigint,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "entity_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "entity_events_occurred_at_idx" ON "entity_events"("occurred_at");

-- CreateIndex
CREATE INDEX "entity_events_txid_idx" ON "entity_events"("txid");

-- ============================================================================================
-- HAND-WRITTEN: the realtime event log is written by a trigger on every entity table and read by
-- the system only (no grant to app_user; RLS on, no policy). NOTIFY is delivered at commit, in commit
-- order, to every listening instance (src/modules/realtime/listener.ts); a rolled-back change sends none.
-- ============================================================================================

ALTER TABLE "entity_events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "entity_events" FORCE ROW LEVEL SECURITY;

-- Arguments: the entity's slug; its public rows as JSON of columns ('' when not public); 'true' when
-- it soft-deletes (marking a row deleted is its DELETED event, and a deleted row's updates none).
CREATE FUNCTION app_record_entity_event() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  rec jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
  prior jsonb := CASE WHEN TG_OP = 'UPDATE' THEN to_jsonb(OLD) END;
  open jsonb := NULLIF(TG_ARGV[1], '')::jsonb;
  kind text := CASE TG_OP WHEN 'INSERT' THEN 'CREATED' WHEN 'DELETE' THEN 'DELETED' ELSE 'UPDATED' END;
  ev entity_events;
BEGIN
  IF TG_ARGV[2] = 'true' AND TG_OP = 'UPDATE' THEN
    IF prior->>'deleted_at' IS NOT NULL AND rec->>'deleted_at' IS NOT NULL THEN RETURN NULL; END IF;
    IF prior->>'deleted_at' IS NULL AND rec->>'deleted_at' IS NOT NULL THEN
      kind := 'DELETED';
      rec := prior; -- who could see it is decided by the row as it was
    ELSIF prior->>'deleted_at' IS NOT NULL THEN
      kind := 'CREATED'; -- restored
    END IF;
  END IF;
  INSERT INTO entity_events (entity, record_id, team_id, user_id, type, public)
    VALUES (TG_ARGV[0], (rec->>'id')::uuid, (rec->>'team_id')::uuid, (rec->>'user_id')::uuid, kind, open IS NOT NULL AND rec @> open)
    RETURNING * INTO ev;
  PERFORM pg_notify('entity_events', json_build_object('id', ev.id::text, 'entity', ev.entity, 'recordId', ev.record_id, 'teamId', ev.team_id, 'userId', ev.user_id, 'type', ev.type, 'public', ev.public, 'occurredAt', ev.occurred_at)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER customers_events AFTER INSERT OR UPDATE OR DELETE ON "customers" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event('customers', '', 'false');
CREATE TRIGGER posts_events AFTER INSERT OR UPDATE OR DELETE ON "posts" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event('posts', '{"status":"published","deleted_at":null}', 'true');
CREATE TRIGGER projects_events AFTER INSERT OR UPDATE OR DELETE ON "projects" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event('projects', '', 'false');
CREATE TRIGGER tasks_events AFTER INSERT OR UPDATE OR DELETE ON "tasks" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event('tasks', '', 'false');
