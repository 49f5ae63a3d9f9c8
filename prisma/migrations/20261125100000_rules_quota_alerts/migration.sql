-- CreateTable
CREATE TABLE "rules" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "match" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rules_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "rules_user_id_match_value_action_key" ON "rules"("user_id", "match", "value", "action");

-- CreateTable
CREATE TABLE "quota_alerts" (
    "user_id" TEXT NOT NULL PRIMARY KEY,
    "warn_below" INTEGER,
    "warned" BOOLEAN NOT NULL DEFAULT false,
    "exceeded_at" BIGINT
);
