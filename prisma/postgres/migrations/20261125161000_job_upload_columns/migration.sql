-- The upload's configuration as named columns of jobs (issue 23), instead of the JSON
-- {columns, filename, format} in "columns": the header stays a JSON array (a list of names); the
-- format's fields are NULL for a list sent without one (an API caller's: plain CSV).
ALTER TABLE "jobs" ADD COLUMN "upload_header" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_filename" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_delimiter" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_bom" BOOLEAN;
ALTER TABLE "jobs" ADD COLUMN "upload_newline" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_sheet" TEXT;
UPDATE "jobs" SET "upload_header" = ("columns"::json -> 'columns')::text, "upload_filename" = "columns"::json ->> 'filename', "upload_delimiter" = "columns"::json -> 'format' ->> 'delimiter', "upload_bom" = ("columns"::json -> 'format' ->> 'bom')::boolean, "upload_newline" = "columns"::json -> 'format' ->> 'newline', "upload_sheet" = "columns"::json -> 'format' ->> 'sheet' WHERE "columns" IS NOT NULL;
ALTER TABLE "jobs" DROP COLUMN "columns";
