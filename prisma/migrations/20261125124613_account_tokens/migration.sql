-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "account_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "account_tokens_token_hash_key" ON "account_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "account_tokens_user_id_purpose_idx" ON "account_tokens"("user_id", "purpose");

-- AddForeignKey
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- HAND-WRITTEN: the tokens of mailed links (password resets, e-mail verifications) are their user's
-- only. Requests create and use them as that user (a reset request runs as the account it found, a
-- confirmation as the token's user); finding a token's user before that is a system read by its hash.
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_purpose_check" CHECK (purpose IN ('password_reset', 'email_verification'));
GRANT SELECT, INSERT, UPDATE ON "account_tokens" TO app_user;
ALTER TABLE "account_tokens" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "account_tokens" FORCE ROW LEVEL SECURITY;
CREATE POLICY account_tokens_owner ON "account_tokens"
  USING (user_id = app_current_user_id()) WITH CHECK (user_id = app_current_user_id());

-- HAND-WRITTEN: accounts made before e-mail verification existed keep signing in when it is turned on
-- (REQUIRE_EMAIL_VERIFICATION, default in production): they count as verified since their creation.
UPDATE "users" SET "email_verified_at" = "created_at" WHERE "email_verified_at" IS NULL;
