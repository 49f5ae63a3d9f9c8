-- Member caps (docs/teams.md): a reserve row names the person whose charged checks it counted in
-- member_usage_days (lib/accounts/member-caps.ts), so its refund gives them back to that person,
-- whoever settles it (the request, a job's end or cancel, the sweeper). Null: no person (a monitor's
-- run, rows from before teams).
ALTER TABLE "credit_ledger" ADD COLUMN "actor_id" TEXT;
