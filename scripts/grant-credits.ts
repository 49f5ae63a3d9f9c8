// npm run grant-credits -- --email <address> --credits <n>
import { db } from '../lib/db/client';
import { grantCredits } from '../lib/accounts/quota';
import { argValue, fail } from './cli';

const email = argValue('email') ?? fail('usage: npm run grant-credits -- --email <address> --credits <n>');
const credits = Number(argValue('credits'));
if (!Number.isInteger(credits) || credits <= 0) fail('--credits must be a positive integer');
const database = await db();
const user = await database.prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
if (!user) fail(`No account for ${email}. Create one with npm run create-key -- --email ${email}`);
console.log(`${user.email} now has ${await grantCredits(database, user.id, credits)} credits.`);
process.exit(0);
