-- Reservations with a live owner (lib/accounts/owners.ts): a reservation names the process that
-- holds it, and each process renews one heartbeat row; the sweeper (lib/accounts/sweeper.ts) takes
-- back only reservations whose owner stopped beating (or, for rows from before owners, older than
-- EV_RESERVATION_TIMEOUT_MS).
ALTER TABLE "credit_ledger" ADD COLUMN "owner" TEXT;
CREATE TABLE "ledger_owners" (
    "owner" TEXT NOT NULL,
    "heartbeat_at" BIGINT NOT NULL,
    CONSTRAINT "ledger_owners_pkey" PRIMARY KEY ("owner")
);
