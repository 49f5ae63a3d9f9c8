import type { RequestOptions, Transport } from './client.ts';
import type {
  Invitation,
  InvitationAccepted,
  InvitationCreated,
  InvitationInput,
  InvitationList,
  InvitationRevoked,
  Member,
  MemberList,
  MemberRemoved,
  MemberUpdate,
  MemberUpdated,
  OrganisationList,
  OrganisationRenamed,
} from './team-types.ts';

const path = (id: string) => encodeURIComponent(id);

/** The organisation's people: /v1/members. */
export class Members {
  constructor(private readonly t: Transport) {}

  async list(options?: RequestOptions): Promise<Member[]> {
    return (await this.t.json<MemberList>('GET', '/v1/members', options)).data;
  }

  /** Changes a member's role or caps (only the fields sent). */
  update(userId: string, change: MemberUpdate, options?: RequestOptions): Promise<MemberUpdated> {
    return this.t.json('PATCH', `/v1/members/${path(userId)}`, { ...options, body: change });
  }

  remove(userId: string, options?: RequestOptions): Promise<MemberRemoved> {
    return this.t.json('DELETE', `/v1/members/${path(userId)}`, options);
  }

  /** The caller leaves the organisation (the last owner cannot). */
  leave(options?: RequestOptions): Promise<MemberRemoved> {
    return this.t.json('DELETE', '/v1/members/me', options);
  }

  /** The organisations the caller belongs to, and the one this request acted for. */
  organisations(options?: RequestOptions): Promise<OrganisationList> {
    return this.t.json('GET', '/v1/organisations', options);
  }

  /** Renames the organisation this request acts for (owners only). */
  renameOrganisation(name: string, options?: RequestOptions): Promise<OrganisationRenamed> {
    return this.t.json('PATCH', '/v1/organisation', { ...options, body: { name } });
  }
}

/** Invitations by email: /v1/invitations. */
export class Invitations {
  constructor(private readonly t: Transport) {}

  /** Invites an address; `link` is answered when the server did not mail it. */
  create(input: InvitationInput, options?: RequestOptions): Promise<InvitationCreated> {
    return this.t.json('POST', '/v1/invitations', { ...options, body: input });
  }

  async list(options?: RequestOptions): Promise<Invitation[]> {
    return (await this.t.json<InvitationList>('GET', '/v1/invitations', options)).data;
  }

  revoke(id: string, options?: RequestOptions): Promise<InvitationRevoked> {
    return this.t.json('DELETE', `/v1/invitations/${path(id)}`, options);
  }

  /** Accepts from a dashboard session of the invited address (API keys cannot). */
  accept(token: string, options?: RequestOptions): Promise<InvitationAccepted> {
    return this.t.json('POST', '/v1/invitations/accept', { ...options, body: { token } });
  }
}
