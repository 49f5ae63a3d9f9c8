/**
 * The audit log's vocabulary (docs/security.md, "Audit log"): every action a row may name. No Node
 * imports: the dashboard's filter reads it too.
 */
export const AUDIT_ACTIONS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'key.created',
  'key.updated',
  'key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'rules.changed',
  'list.uploaded',
  'list.downloaded',
  'list.cancelled',
  'list.deleted',
  'credits.granted',
  'settings.changed',
  'data.erased',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** What an action was done to. `label` names it for a reader (a list's name, a key's name, a member's email, a webhook URL's host): never a secret, never a verified address. */
export interface AuditTarget {
  type: 'organisation' | 'member' | 'invitation' | 'key' | 'webhook' | 'rules' | 'list' | 'settings' | 'data' | 'person';
  id?: string | null;
  label?: string | null;
}
