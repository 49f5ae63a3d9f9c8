-- Publishable keys' daily budgets (issue 29): a cap of charged checks per UTC day per key (NULL:
-- EV_PUBLISHABLE_CHECKS_PER_DAY) and each key's count of the day (lib/accounts/key-budget.ts).
-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN "checks_per_day" INTEGER;

-- CreateTable
CREATE TABLE "publishable_key_days" (
    "key_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "checks" INTEGER NOT NULL DEFAULT 0,
    "warned" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "publishable_key_days_pkey" PRIMARY KEY ("key_id","day")
);

-- AddForeignKey
ALTER TABLE "publishable_key_days" ADD CONSTRAINT "publishable_key_days_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
