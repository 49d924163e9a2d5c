-- No schema change: this migration holds only SQL the Prisma schema cannot express.

-- ============================================================================================
-- HAND-WRITTEN: media search through its index under row-level security. As app_user, the list's
-- `document @@ query` condition cannot use media_search_idx: the text-search match is not
-- leakproof, so PostgreSQL evaluates it only after the RLS policy, row by row, rebuilding every
-- document (50k records: ~1.8 s instead of ~20 ms). This function finds the matching ids through
-- the index for the caller's own teams among `teams` (the same rule as the policy, spelled out),
-- and the list joins them back under RLS as usual.
-- ============================================================================================
CREATE FUNCTION app_media_search(teams uuid[], search text) RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT id FROM media
         WHERE team_id = ANY(teams) AND team_id IN (SELECT app_user_team_ids()) AND status = 'active'
           AND media_search_document(filename, title, alt, caption) @@ media_search_query(search) $$;
