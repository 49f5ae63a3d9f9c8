import { createRequire } from 'node:module';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

// The two list packages ship plain CommonJS/JSON without types; require keeps them out of the
// bundler's JSON-import rules.
const require = createRequire(import.meta.url);

// Loaded once per process: every address of a bulk job looks them up.
const disposableDomains: Set<string> = disposableEmailBlocklistSet();
// goware/emailproviders via email-providers: ~8.7k domains that give out free mailboxes
const freeDomains = new Set<string>(require('email-providers/all.json') as string[]);
// The ~360 providers with a Majestic rank under 100k: the ones typos are made against
export const commonProviders = new Set<string>(require('email-providers/common.json') as string[]);
// info@, sales@, postmaster@...: mailboxes read by a team, not a person
const roleLocalParts = new Set<string>(require('role-based-email-addresses') as string[]);

/** Disposable if the domain or any parent domain is listed (mx.mailinator.com too). */
export function isDisposableDomain(domain: string): boolean {
  for (let d = domain.toLowerCase(); d.includes('.'); d = d.slice(d.indexOf('.') + 1)) {
    if (disposableDomains.has(d)) return true;
  }
  return false;
}

export function isFreeProvider(domain: string): boolean {
  return freeDomains.has(domain.toLowerCase());
}

/** Role account: the local part, without +tag, is a team name (Info+news@ counts). */
export function isRoleAccount(local: string): boolean {
  const base = local.toLowerCase().split('+')[0];
  return roleLocalParts.has(base);
}
