-- Scoped, restricted, expiring and publishable API keys (lib/accounts/keys.ts). Existing keys keep
-- every scope (NULL) and no restriction, so they work as before.
ALTER TABLE "api_keys" ADD COLUMN "type" TEXT NOT NULL DEFAULT 'secret';
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "allowed_origins" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMP(3);
ALTER TABLE "api_keys" ADD COLUMN "visitor_rate_per_minute" INTEGER;
ALTER TABLE "api_keys" ADD COLUMN "key_rate_per_minute" INTEGER;
