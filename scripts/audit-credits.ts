// npm run audit-credits [-- --json]: proves every account's books from the credit ledger (the
// equations in lib/accounts/audit.ts and docs/guarantees.md); names each account where they do not
// hold and exits 1, else prints how many accounts hold and exits 0.
import { db } from '../lib/db/client';
import { auditCredits } from '../lib/accounts/audit';

const report = await auditCredits(await db());
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else if (report.problems.length === 0) {
  console.log(`The books hold for all ${report.accounts} accounts.`);
} else {
  for (const account of report.problems) {
    console.log(`✗ ${account.email} (${account.userId})`);
    for (const problem of account.problems) console.log(`    ${problem}`);
  }
  console.log(`\nThe books do not hold for ${report.problems.length} of ${report.accounts} accounts.`);
}
process.exit(report.problems.length === 0 ? 0 : 1);
