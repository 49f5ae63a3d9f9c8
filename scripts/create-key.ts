// npm run create-key -- --email <address> [--name <label>]: creates the account if needed and
// prints a new API key as the last line of output.
import { createApiKey, ensureAccount } from '../lib/accounts';
import { argValue, fail } from './cli';

const email = argValue('email') ?? fail('usage: npm run create-key -- --email <address> [--name <label>]');
if (!/^[^\s@]+@[^\s@]+$/.test(email)) fail(`Not an email address: ${email}`);
const account = await ensureAccount(email);
const { key, info } = await createApiKey(account.id, argValue('name') ?? 'created from the command line');
console.log(`Account ${account.email} (${account.id}); key ${info.id} created. It is shown only once:`);
console.log(key);
process.exit(0);
