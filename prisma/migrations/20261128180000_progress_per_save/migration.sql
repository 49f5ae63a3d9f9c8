-- Progress is counted once per save, not once per row (issue 34): the trigger of
-- 20261125150000_neighbours upserted job_progress and looked up the row's duplicates for every stored
-- result, about 30% of a result insert's cost. Every writer of a job's results now adds what it
-- stored (and its later duplicates) to job_progress in the transaction of the insert
-- (lib/db/job-progress.ts); the counts already kept stay as they are.
DROP TRIGGER IF EXISTS "verifications_job_progress";
