-- The audit log (docs/security.md, "Audit log"): append-only, one row per sensitive action, written
-- in the action's transaction (lib/audit/record.ts); the retention sweep deletes rows older than
-- EV_AUDIT_RETENTION_DAYS (lib/retention/sweep.ts).
CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "org_id" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "action" TEXT NOT NULL,
    "actor_user_id" TEXT,
    "actor_key_id" TEXT,
    "actor_email" TEXT,
    "target_type" TEXT,
    "target_id" TEXT,
    "target_label" TEXT,
    "client_address" TEXT,
    "method" TEXT,
    "details" TEXT
);
-- the retention sweep's window is by time alone
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");
CREATE INDEX "audit_events_org_id_at_idx" ON "audit_events"("org_id", "at");
CREATE INDEX "audit_events_org_id_action_at_idx" ON "audit_events"("org_id", "action", "at");
