// npm run create-key -- --email <address> [--name <label>]: creates the account if needed and
// prints a new API key as the last line of output.
import { ensureAccount } from '../lib/accounts/users';
import { createApiKey } from '../lib/accounts/keys';
import { argValue, fail } from './cli';
import { db } from '../lib/db/client';

const email = argValue('email') ?? fail('usage: npm run create-key -- --email <address> [--name <label>]');
if (!/^[^\s@]+@[^\s@]+$/.test(email)) fail(`Not an email address: ${email}`);
const database = await db();
const account = await ensureAccount(database, email);
const { key, info } = await createApiKey(database, account.id, argValue('name') ?? 'created from the command line');
console.log(`Account ${account.email} (${account.id}); key ${info.id} created. It is shown only once:`);
console.log(key);
process.exit(0);
