-- CreateTable
CREATE TABLE "rules" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "match" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rules_user_id_match_value_action_key" ON "rules"("user_id", "match", "value", "action");

-- AddForeignKey
ALTER TABLE "rules" ADD CONSTRAINT "rules_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "quota_alerts" (
    "user_id" TEXT NOT NULL,
    "warn_below" INTEGER,
    "warned" BOOLEAN NOT NULL DEFAULT false,
    "exceeded_at" BIGINT,

    CONSTRAINT "quota_alerts_pkey" PRIMARY KEY ("user_id")
);
