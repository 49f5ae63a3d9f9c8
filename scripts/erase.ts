// npm run erase -- --email <address> [--json]: erases one address from every store of every account
// (lib/retention/erase.ts, docs/retention.md): the operator's answer to an erasure request. Prints
// what went; an account whose own sign-in address it is is named, not deleted (delete the account).
import { parseArgs } from 'node:util';
import { normalizeEmail } from '../lib/accounts/users';
import { db } from '../lib/db/client';
import { erasedCounts, eraseEverywhere } from '../lib/retention/erase';
import { operatorActor, withAuditActor } from '../lib/audit/context';

const { values } = parseArgs({ options: { email: { type: 'string' }, json: { type: 'boolean' } } });
if (!values.email) {
  console.error('usage: npm run erase -- --email <address> [--json]');
  process.exit(2);
}
const database = await db();
// each organisation it held the address of gets a `data.erased` row naming the operator's command
const erased = await withAuditActor(operatorActor('npm run erase'), () => eraseEverywhere(database, values.email!));
const account = await database.prisma.user.findUnique({ where: { email: normalizeEmail(erased.email) }, select: { id: true } });
const accounts = account ? [account] : [];
if (values.json) {
  console.log(JSON.stringify({ email: erased.email, removed: erasedCounts(erased.removed), account_ids: accounts.map((a) => a.id) }, null, 2));
} else {
  console.log(`Erased ${erased.email} from every account:`);
  for (const [what, n] of Object.entries(erasedCounts(erased.removed))) console.log(`  ${String(n).padStart(8)} ${what.replaceAll('_', ' ')}`);
  for (const account of accounts) console.log(`  an account signs in with this address (${account.id}): delete the account to erase it too`);
}
process.exit(0);
