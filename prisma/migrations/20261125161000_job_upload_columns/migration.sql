-- The upload's configuration as named columns of jobs (issue 23), instead of the JSON
-- {columns, filename, format} in "columns": the header stays a JSON array (a list of names); the
-- format's fields are NULL for a list sent without one (an API caller's: plain CSV).
ALTER TABLE "jobs" ADD COLUMN "upload_header" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_filename" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_delimiter" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_bom" BOOLEAN;
ALTER TABLE "jobs" ADD COLUMN "upload_newline" TEXT;
ALTER TABLE "jobs" ADD COLUMN "upload_sheet" TEXT;
UPDATE "jobs" SET "upload_header" = json_extract("columns", '$.columns'), "upload_filename" = json_extract("columns", '$.filename'), "upload_delimiter" = json_extract("columns", '$.format.delimiter'), "upload_bom" = json_extract("columns", '$.format.bom'), "upload_newline" = json_extract("columns", '$.format.newline'), "upload_sheet" = json_extract("columns", '$.format.sheet') WHERE "columns" IS NOT NULL AND json_valid("columns");
ALTER TABLE "jobs" DROP COLUMN "columns";
