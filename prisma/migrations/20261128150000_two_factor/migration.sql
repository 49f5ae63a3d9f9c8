-- Two-factor sign-in (docs/security.md, "Two-factor"): a person's TOTP secret (encrypted with a key
-- derived from the session secret; pending until the first code confirms it), the last time step a
-- code was accepted at (a code is accepted once), the organisation's requirement, and the one-time
-- recovery codes (SHA-256 of a high-entropy code; used_at once spent).
ALTER TABLE "users" ADD COLUMN "totp_secret" TEXT;
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" DATETIME;
ALTER TABLE "users" ADD COLUMN "totp_last_step" INTEGER;
ALTER TABLE "users" ADD COLUMN "require_two_factor" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "recovery_codes" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "used_at" DATETIME
);
CREATE UNIQUE INDEX "recovery_codes_code_hash_key" ON "recovery_codes"("code_hash");
CREATE INDEX "recovery_codes_user_id_idx" ON "recovery_codes"("user_id");
