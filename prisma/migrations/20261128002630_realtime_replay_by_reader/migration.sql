-- CreateIndex
CREATE INDEX "entity_events_entity_team_id_id_idx" ON "entity_events"("entity", "team_id", "id");

-- CreateIndex
CREATE INDEX "entity_events_entity_public_id_idx" ON "entity_events"("entity", "public", "id");
