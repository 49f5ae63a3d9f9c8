// npm run grant-credits -- --email <address> --credits <n> [--reference <id>]
// Writes a `grant` row to the credit ledger with the credits; a --reference (an invoice or order id)
// names the grant, so running the same command twice grants once.
import { db } from '../lib/db/client';
import { grantCredits } from '../lib/accounts/quota';
import { argValue, fail } from './cli';
import { operatorActor, withAuditActor } from '../lib/audit/context';

const email = argValue('email') ?? fail('usage: npm run grant-credits -- --email <address> --credits <n>');
const credits = Number(argValue('credits'));
if (!Number.isInteger(credits) || credits <= 0) fail('--credits must be a positive integer');
const database = await db();
const user = await database.prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
if (!user) fail(`No account for ${email}. Create one with npm run create-key -- --email ${email}`);
const reference = argValue('reference');
if (reference !== undefined && !/^[A-Za-z0-9_.:-]{1,100}$/.test(reference)) fail('--reference: 1 to 100 letters, digits, _ . : -');
try {
  console.log(
    `${user.email} now has ${await withAuditActor(operatorActor('npm run grant-credits'), () => grantCredits(database, user.id, credits, reference ? `grant_${reference}` : undefined))} credits.`,
  );
} catch (error) {
  if ((error as { code?: string }).code !== 'P2002' && !/unique|UNIQUE/.test(String(error))) throw error;
  fail(`A grant with reference ${reference} was already made: nothing was added.`);
}
process.exit(0);
