-- sub_reason and mailbox_provider as columns (issue 23): the download, the job's insights and the
-- cache read them without JSON SQL or a JSON.parse per row. Rows stored before keep them in their
-- details JSON too; the backfill copies them out.
ALTER TABLE "verifications" ADD COLUMN "sub_reason" TEXT;
ALTER TABLE "verifications" ADD COLUMN "mailbox_provider" TEXT;
UPDATE "verifications" SET "sub_reason" = "details"::json ->> 'sub_reason', "mailbox_provider" = "details"::json ->> 'mailbox_provider';
