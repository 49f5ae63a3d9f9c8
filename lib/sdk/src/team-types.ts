/** Organisations, members and invitations (/v1/organisations, /v1/members, /v1/invitations; docs/teams.md). */

import type { OrganisationSettings } from './account-types.ts';
import type { Role } from './key-types.ts';

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

export interface MemberList {
  success: true;
  data: Member[];
}

export interface MemberUpdated extends Member {
  success: true;
}

export interface MemberRemoved {
  success: true;
  /** the user id of the member removed */
  removed: string;
}

/** Only the fields sent change. */
export interface MemberUpdate {
  role?: Role;
  checks_per_day?: number | null;
  checks_per_month?: number | null;
}

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

/** PATCH /v1/organisation's answer: the organisation's settings (account-types.ts). */
export type OrganisationRenamed = OrganisationSettings;

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
  invited_by: { user_id: string; email: string };
  state: InvitationState;
}

export interface InvitationList {
  success: true;
  data: Invitation[];
}

export interface InvitationInput {
  email: string;
  /** admins invite members and viewers, owners any role */
  role: Role;
}

export interface InvitationCreated {
  success: true;
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
  invited_by: { user_id: string; email: string };
  /** whether the SMTP relay took the invitation mail */
  mailed: boolean;
  /** the link, when it was not mailed: pass it on yourself */
  link: string | null;
  /** why the relay did not take the mail (the invitation stands) */
  mail_error?: string;
}

export interface InvitationRevoked {
  success: true;
  id: string;
  revoked: true;
}

export interface InvitationAccepted {
  success: true;
  organisation: Organisation;
}
