-- The cache lookup and the history search by address compare addresses without ASCII case
-- (Alice@Example.com is alice@example.com: the duplicates rule of the README), so the partial
-- (user_id, email) index becomes one on lower(email). SQLite's lower() folds ASCII letters only;
-- the code lower-cases the same way (lib/history.ts mailboxCase). Same name: the queries that
-- force it (INDEXED BY) stay as they are.
DROP INDEX "verifications_user_id_email_idx";
CREATE INDEX "verifications_user_id_email_idx" ON "verifications"("user_id", lower("email")) WHERE "sandbox" = 0;
