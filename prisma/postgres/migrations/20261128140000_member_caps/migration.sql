-- Member caps (docs/teams.md, lib/accounts/member-caps.ts). A reserve row names the person whose
-- charged checks it counted (null: no person, a monitor's run, or rows from before teams), so its
-- refund gives them back to that person whoever settles it (the request, a job's end or cancel,
-- the sweeper).
ALTER TABLE "credit_ledger" ADD COLUMN "actor_id" TEXT;

-- A person's charged checks per calendar month (UTC, `YYYY-MM`) in an organisation, beside
-- member_usage_days: the month's cap is checked on this one row, by the same conditional upsert
-- as the day's, so concurrent reservations cannot pass it.
CREATE TABLE "member_usage_months" (
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY ("org_id", "user_id", "month")
);
