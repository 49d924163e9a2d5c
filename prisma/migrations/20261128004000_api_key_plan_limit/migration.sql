-- ============================================================================================
-- HAND-WRITTEN: the plans' `api_keys` limit, applied when a key is minted (api-keys/service.ts), was
-- only reported (`/teams/{id}/usage/api_keys` showed 140% and minting went on).
--
-- A team counts its members' usable keys: active and not past their expiry (a key that expired unused
-- keeps the status `active` until it is next presented; it no longer counts). A mint's count first
-- takes a lock of the team's own, held until its transaction ends, then counts with a new snapshot (a
-- VOLATILE function: each statement reads anew), so that mints racing at the limit, by one member or
-- several, are counted one after the other and never pass it together; it counts at most `at_most`.
-- ============================================================================================

CREATE OR REPLACE FUNCTION app_team_active_api_keys(team uuid) RETURNS integer
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT count(*)::integer FROM api_keys k JOIN team_members m ON m.user_id = k.user_id
        WHERE m.team_id = team AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())
          AND team IN (SELECT app_user_team_ids()) $$;

CREATE FUNCTION app_team_active_api_keys_for_create(team uuid, at_most integer) RETURNS integer
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE n integer;
BEGIN
  IF team NOT IN (SELECT app_user_team_ids()) THEN RETURN 0; END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('api_keys:' || team::text, 0));
  SELECT count(*)::integer INTO n FROM (
    SELECT 1 FROM api_keys k JOIN team_members m ON m.user_id = k.user_id
     WHERE m.team_id = team AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())
     LIMIT at_most) AS counted;
  RETURN n;
END $$;

REVOKE EXECUTE ON FUNCTION app_team_active_api_keys_for_create(uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app_team_active_api_keys_for_create(uuid, integer) TO app_user;
