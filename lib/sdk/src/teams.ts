import type { RequestOptions, Transport } from './client.ts';
import type { Role } from './account-types.ts';

/** Organisations, their members and invitations (docs/teams.md): /v1/organisations, /v1/members, /v1/invitations. */

export interface Organisation {
  id: string;
  name: string;
  /** your role in it (a key: its own role) */
  role: Role;
}

export interface OrganisationList {
  success: true;
  /** the organisation this request acted for */
  current: string;
  data: Organisation[];
}

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  /** charged checks a UTC day this member may spend; null: no cap */
  checks_per_day: number | null;
  /** charged checks a calendar month (UTC); null: no cap */
  checks_per_month: number | null;
  joined_at: string;
}

/** Only the fields sent change. */
export interface MemberUpdate {
  role?: Role;
  checks_per_day?: number | null;
  checks_per_month?: number | null;
}

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
  /** who sent it; `email` is empty when that person's account is gone */
  invited_by: { user_id: string; email: string };
  state: InvitationState;
}

export interface InvitationCreated extends Omit<Invitation, 'state'> {
  success: true;
  /** whether the SMTP relay took the invitation mail */
  mailed: boolean;
  /** the link to join, answered only when it was not mailed (no relay, or the relay refused): pass it on yourself */
  link: string | null;
  /** why the relay did not take the mail (the invitation stands) */
  mail_error?: string;
}

const path = (id: string) => encodeURIComponent(id);

export function organisations(t: Transport, options?: RequestOptions): Promise<OrganisationList> {
  return t.json('GET', '/v1/organisations', options);
}

export function renameOrganisation(t: Transport, name: string, options?: RequestOptions): Promise<{ success: true; id: string; name: string }> {
  return t.json('PATCH', '/v1/organisation', { ...options, body: { name } });
}

/** The organisation's people: /v1/members. */
export class Members {
  constructor(private readonly t: Transport) {}

  async list(options?: RequestOptions): Promise<Member[]> {
    return (await this.t.json<{ data: Member[] }>('GET', '/v1/members', options)).data;
  }

  update(userId: string, change: MemberUpdate, options?: RequestOptions): Promise<Member & { success: true }> {
    return this.t.json('PATCH', `/v1/members/${path(userId)}`, { ...options, body: change });
  }

  remove(userId: string, options?: RequestOptions): Promise<{ success: true; removed: string }> {
    return this.t.json('DELETE', `/v1/members/${path(userId)}`, options);
  }

  /** Leaves the organisation this client acts for. */
  leave(options?: RequestOptions): Promise<{ success: true; removed: string }> {
    return this.t.json('DELETE', '/v1/members/me', options);
  }
}

/** Invitations by email: /v1/invitations. */
export class Invitations {
  constructor(private readonly t: Transport) {}

  create(input: { email: string; role: Role }, options?: RequestOptions): Promise<InvitationCreated> {
    return this.t.json('POST', '/v1/invitations', { ...options, body: input });
  }

  async list(options?: RequestOptions): Promise<Invitation[]> {
    return (await this.t.json<{ data: Invitation[] }>('GET', '/v1/invitations', options)).data;
  }

  revoke(id: string, options?: RequestOptions): Promise<{ success: true; id: string; revoked: true }> {
    return this.t.json('DELETE', `/v1/invitations/${path(id)}`, options);
  }
}
