-- The account's configuration version (lib/accounts/versions.ts): every change to its rules or keys
-- bumps it, and a process's cached rule book and key lookups stay good while it is unchanged.
ALTER TABLE "users" ADD COLUMN "config_version" INTEGER NOT NULL DEFAULT 0;
