/** The audit log's answers (GET /v1/audit); test/types.test.ts holds them equal to the server's schemas. */

export type AuditAction =
  | 'sign_in.succeeded'
  | 'sign_in.failed'
  | 'member.invited'
  | 'member.joined'
  | 'member.role_changed'
  | 'member.removed'
  | 'key.created'
  | 'key.updated'
  | 'key.revoked'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'webhook.secret_rotated'
  | 'rules.changed'
  | 'list.uploaded'
  | 'list.downloaded'
  | 'list.cancelled'
  | 'list.deleted'
  | 'credits.granted'
  | 'settings.changed'
  | 'data.erased';

export interface AuditEvent {
  id: string;
  at: string;
  action: AuditAction;
  /** the person (a session's user, or the key's maker), the key, and the person's email then */
  actor: { user_id: string | null; key_id: string | null; email: string | null };
  /** a list's file name, a key's name, a member's email, a webhook URL's host: never a secret */
  target: { type: string | null; id: string | null; label: string | null };
  client_address: string | null;
  /** sign-in: `password` or `oidc`; otherwise `session`, `key` or the operator's command */
  method: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditPage {
  success: true;
  data: AuditEvent[];
  next_cursor: string | null;
}

export interface AuditFilter {
  /** a person's user id or a key's id */
  actor?: string;
  action?: AuditAction;
  /** ISO 8601 times, inclusive */
  from?: string;
  to?: string;
}
