-- Teams (docs/teams.md): every existing account becomes an organisation of one, its owner being the
-- account's own user; nothing is renumbered (the organisation's id is the account's id).
ALTER TABLE "users" ADD COLUMN "org_name" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "created_by" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'owner';
UPDATE "api_keys" SET "created_by" = "user_id";

CREATE TABLE "memberships" (
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "checks_per_day" INTEGER,
    "checks_per_month" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("org_id", "user_id")
);
CREATE INDEX "memberships_user_id_idx" ON "memberships"("user_id");
INSERT INTO "memberships" ("org_id", "user_id", "role", "created_at") SELECT "id", "id", 'owner', "created_at" FROM "users";

CREATE TABLE "invitations" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "org_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "accepted_at" DATETIME,
    "accepted_by" TEXT,
    "revoked_at" DATETIME
);
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations"("token_hash");
CREATE INDEX "invitations_org_id_idx" ON "invitations"("org_id");

CREATE TABLE "member_usage_days" (
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY ("org_id", "user_id", "day")
);
