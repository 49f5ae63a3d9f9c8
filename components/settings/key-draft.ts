import type { Scope } from '@/lib/accounts/scopes';
import type { ApiKey, KeyInput, KeyUpdateInput } from '@/lib/sdk/src/index';

/** The editable part of a key, as the form holds it. */
export interface KeyDraft {
  scopes: Scope[];
  ips: string;
  origins: string;
  /** yyyy-mm-dd, or '' for never */
  expires: string;
  /** publishable keys: charged checks a UTC day, or '' for the installation's default */
  perDay: string;
}

/** A new secret key may verify, nothing more, unless the owner ticks more (a CRM integration's key). */
export const NEW_KEY: KeyDraft = { scopes: ['verify'], ips: '', origins: '', expires: '', perDay: '' };

/**
 * A key as the edit form starts. The listing gives the cap in force, which is the installation's
 * default when the key has none of its own: the form shows it, and changesOf sends it back only
 * when the owner changed it.
 */
export function draftOf(key: ApiKey): KeyDraft {
  return {
    scopes: key.scopes,
    ips: key.allowed_ips?.join(', ') ?? '',
    origins: key.allowed_origins?.join(', ') ?? '',
    expires: key.expires_at?.slice(0, 10) ?? '',
    perDay: key.rate_limits ? String(key.rate_limits.checks_per_day) : '',
  };
}

const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The draft as the body of a new key: what was left empty is not sent. */
export function bodyOf(draft: KeyDraft, publishable: boolean): KeyInput {
  return {
    ...(publishable ? { allowed_origins: list(draft.origins) } : { scopes: draft.scopes }),
    ...(publishable && Number(draft.perDay) >= 1 ? { rate_limits: { checks_per_day: Math.floor(Number(draft.perDay)) } } : {}),
    allowed_ips: list(draft.ips).length ? list(draft.ips) : undefined,
    expires_at: draft.expires ? `${draft.expires}T23:59:59Z` : undefined,
  };
}

/**
 * The draft as an edit of the key the form started from (`before`, draftOf's): nulls clear what was
 * emptied. The daily cap is sent only when the owner changed it, null when emptied (the key follows
 * the installation's default again); its per-minute limits are not the form's and stay as they are.
 */
export function changesOf(draft: KeyDraft, publishable: boolean, before: KeyDraft): KeyUpdateInput {
  const { rate_limits: _, ...body } = bodyOf(draft, publishable);
  const perDay = draft.perDay.trim();
  const changed = publishable && perDay !== before.perDay.trim();
  return {
    ...body,
    allowed_ips: body.allowed_ips ?? null,
    expires_at: body.expires_at ?? null,
    // a cap below 1 goes as typed (floored) and the API answers what is wrong with it
    ...(changed ? { rate_limits: { checks_per_day: perDay === '' ? null : Math.floor(Number(perDay)) } } : {}),
  };
}
