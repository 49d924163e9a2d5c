-- CreateTable
CREATE TABLE "user_totp" (
    "user_id" UUID NOT NULL,
    "secret_sealed" TEXT NOT NULL,
    "enabled_at" TIMESTAMPTZ(3),
    "last_step" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_totp_pkey" PRIMARY KEY ("user_id")
);

-- AddForeignKey
ALTER TABLE "user_totp" ADD CONSTRAINT "user_totp_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- HAND-WRITTEN: a user's second factor is theirs only (set up, confirmed, used and removed as them).
-- The tokens of account_tokens also serve the second step of a two-factor sign-in (a short-lived
-- challenge) and recovery codes (single use, no expiry in practice).
GRANT SELECT, INSERT, UPDATE, DELETE ON "user_totp" TO app_user;
ALTER TABLE "user_totp" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "user_totp" FORCE ROW LEVEL SECURITY;
CREATE POLICY user_totp_owner ON "user_totp"
  USING (user_id = app_current_user_id()) WITH CHECK (user_id = app_current_user_id());

ALTER TABLE "account_tokens" DROP CONSTRAINT "account_tokens_purpose_check";
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_purpose_check"
  CHECK (purpose IN ('password_reset', 'email_verification', 'sign_in_challenge', 'recovery_code'));
