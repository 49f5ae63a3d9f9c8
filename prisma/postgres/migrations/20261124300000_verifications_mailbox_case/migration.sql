-- The cache lookup and the history search by address compare addresses without ASCII case
-- (Alice@Example.com is alice@example.com: the duplicates rule of the README), so the partial
-- (user_id, email) index becomes one on lower(email). Under the "C" collation lower() folds ASCII
-- letters only, as SQLite's does and as the code does (lib/history.ts mailboxCase).
DROP INDEX "verifications_user_id_email_idx";
CREATE INDEX "verifications_user_id_email_idx" ON "verifications"("user_id", lower("email" COLLATE "C")) WHERE "sandbox" = false;
