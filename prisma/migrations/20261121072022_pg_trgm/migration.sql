-- No schema change: this migration holds only SQL the Prisma schema cannot express.

-- ============================================================================================
-- HAND-WRITTEN: trigram matching, for the search indexes of entities' searchable fields (LIST
-- `search` is a case-insensitive "contains"; a GIN trigram index serves ILIKE '%…%'). pg_trgm is a
-- trusted extension: the database owner may create it.
-- ============================================================================================
CREATE EXTENSION IF NOT EXISTS pg_trgm;
