-- CreateTable
CREATE TABLE "user_identities" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_sign_in_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sign_in_flows" (
    "id_hash" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "callback_url" TEXT NOT NULL,
    "redirect_to" TEXT NOT NULL,
    "invite_token" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_flows_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "user_identities_user_id_idx" ON "user_identities"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_identities_provider_subject_key" ON "user_identities"("provider", "subject");

-- CreateIndex
CREATE INDEX "sign_in_flows_expires_at_idx" ON "sign_in_flows"("expires_at");

-- AddForeignKey
ALTER TABLE "user_identities" ADD CONSTRAINT "user_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- HAND-WRITTEN: a linked identity is its user's only (listed and unlinked as that user, linked in the
-- sign-in's transaction as that user); finding the user of a provider's account before anyone is signed
-- in is a system read.
GRANT SELECT, INSERT, UPDATE, DELETE ON "user_identities" TO app_user;
ALTER TABLE "user_identities" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "user_identities" FORCE ROW LEVEL SECURITY;
CREATE POLICY user_identities_owner ON "user_identities"
  USING (user_id = app_current_user_id()) WITH CHECK (user_id = app_current_user_id());

-- HAND-WRITTEN: sign-ins under way belong to no user yet: only the system (the server before anyone is
-- signed in) reads and writes them; the request role has no grant and RLS denies it every row.
ALTER TABLE "sign_in_flows" ENABLE ROW LEVEL SECURITY;
