-- CreateIndex
CREATE INDEX "customers_name_idx" ON "customers" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "posts_title_idx" ON "posts" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "posts_excerpt_idx" ON "posts" USING GIN ("excerpt" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "tasks_title_idx" ON "tasks" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "tasks_description_idx" ON "tasks" USING GIN ("description" gin_trgm_ops);
