import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as res from '@/lib/api/responses';
import type * as rr from '@/lib/api/responses-rules';
import type * as rd from '@/lib/api/responses-data';
import type * as rm from '@/lib/api/responses-monitors';
import type * as rt from '@/lib/api/responses-teams';
import type * as req from '@/lib/api/schemas';
import type * as sdk from '../src/index';

// Checked by `tsc --noEmit`: the SDK's hand-written types (it has no dependencies, so no zod) equal
// the server's schemas, from which the OpenAPI document is generated.
describe('the SDK types', () => {
  it('equal the response schemas of the contract', () => {
    expectTypeOf<sdk.SingleResult>().toEqualTypeOf<z.infer<typeof res.singleResult>>();
    expectTypeOf<sdk.VerifyResult>().toEqualTypeOf<z.infer<typeof res.verifyResult>>();
    expectTypeOf<sdk.BulkSubmitted>().toEqualTypeOf<z.infer<typeof res.bulkSubmitted>>();
    expectTypeOf<sdk.JobStatus>().toEqualTypeOf<z.infer<typeof res.jobStatus>>();
    expectTypeOf<sdk.JobListItem>().toEqualTypeOf<z.infer<typeof res.jobListItem>>();
    expectTypeOf<sdk.JobPage>().toEqualTypeOf<z.infer<typeof res.jobList>>();
    expectTypeOf<sdk.HistoryPage>().toEqualTypeOf<z.infer<typeof res.historyPage>>();
    expectTypeOf<sdk.AccountMessage>().toEqualTypeOf<z.infer<typeof res.accountMessage>>();
    expectTypeOf<sdk.EgressReport>().toEqualTypeOf<z.infer<typeof res.egressReport>>();
    expectTypeOf<sdk.JobCancelled>().toEqualTypeOf<z.infer<typeof res.jobCancelled>>();
    expectTypeOf<sdk.HistoryRecord>().toEqualTypeOf<z.infer<typeof res.historyRecord>>();
    expectTypeOf<sdk.Webhook>().toEqualTypeOf<z.infer<typeof res.webhook>>();
    expectTypeOf<sdk.WebhookCreated>().toEqualTypeOf<z.infer<typeof res.webhookCreated>>();
    expectTypeOf<sdk.Delivery>().toEqualTypeOf<z.infer<typeof res.delivery>>();
    expectTypeOf<sdk.DeliverySent>().toEqualTypeOf<z.infer<typeof res.deliverySent>>();
    expectTypeOf<sdk.Account>().toEqualTypeOf<z.infer<typeof res.account>>();
    expectTypeOf<sdk.ApiKey>().toEqualTypeOf<z.infer<typeof res.apiKey>>();
    expectTypeOf<sdk.ApiKeyCreated>().toEqualTypeOf<z.infer<typeof res.apiKeyCreated>>();
    expectTypeOf<sdk.WebhookPayload>().toEqualTypeOf<
      | z.infer<typeof res.bulkCompletedEvent>
      | z.infer<typeof res.bulkFailedEvent>
      | z.infer<typeof rr.quotaWarningEvent>
      | z.infer<typeof rr.quotaExceededEvent>
      | z.infer<typeof rd.listExpiringEvent>
      | z.infer<typeof rm.listChangedEvent>
      | z.infer<typeof res.webhookTestEvent>
    >();
    expectTypeOf<sdk.MonitorCreated>().toEqualTypeOf<z.infer<typeof rm.monitorCreated>>();
    expectTypeOf<sdk.MonitorList>().toEqualTypeOf<z.infer<typeof rm.monitorList>>();
    expectTypeOf<sdk.MonitorDetail>().toEqualTypeOf<z.infer<typeof rm.monitorDetail>>();
    expectTypeOf<sdk.MonitorDeleted>().toEqualTypeOf<z.infer<typeof rm.monitorDeleted>>();
    expectTypeOf<sdk.ReuseSettings>().toEqualTypeOf<z.infer<typeof rm.reuseSettings>>();
    expectTypeOf<sdk.RuleCreated>().toEqualTypeOf<z.infer<typeof rr.ruleCreated>>();
    expectTypeOf<sdk.RuleImport>().toEqualTypeOf<z.infer<typeof rr.ruleImported>>();
    expectTypeOf<sdk.QuotaState>().toEqualTypeOf<z.infer<typeof rr.quotaState>>();
    expectTypeOf<sdk.UsageReport>().toEqualTypeOf<z.infer<typeof rr.usageReport>>();
    expectTypeOf<sdk.RetentionState>().toEqualTypeOf<z.infer<typeof rd.retentionState>>();
    expectTypeOf<sdk.AddressErased>().toEqualTypeOf<z.infer<typeof rd.addressErased>>();
    expectTypeOf<sdk.AuditEvent>().toEqualTypeOf<z.infer<typeof rt.auditEvent>>();
    expectTypeOf<sdk.AuditPage>().toEqualTypeOf<z.infer<typeof rt.auditPage>>();
    expectTypeOf<sdk.OrganisationSettings>().toEqualTypeOf<z.infer<typeof rt.organisationSettings>>();
    expectTypeOf<sdk.TwoFactorState>().toEqualTypeOf<z.infer<typeof rt.twoFactorState>>();
    expectTypeOf<sdk.TwoFactorEnrolment>().toEqualTypeOf<z.infer<typeof rt.twoFactorEnrolment>>();
    expectTypeOf<sdk.TwoFactorEnabled>().toEqualTypeOf<z.infer<typeof rt.twoFactorEnabled>>();
    expectTypeOf<sdk.TwoFactorDisabled>().toEqualTypeOf<z.infer<typeof rt.twoFactorDisabled>>();
    expectTypeOf<sdk.Member>().toEqualTypeOf<z.infer<typeof rt.member>>();
    expectTypeOf<sdk.MemberList>().toEqualTypeOf<z.infer<typeof rt.memberList>>();
    expectTypeOf<sdk.MemberUpdated>().toEqualTypeOf<z.infer<typeof rt.memberUpdated>>();
    expectTypeOf<sdk.MemberRemoved>().toEqualTypeOf<z.infer<typeof rt.memberRemoved>>();
    expectTypeOf<sdk.OrganisationList>().toEqualTypeOf<z.infer<typeof rt.organisationList>>();
    expectTypeOf<sdk.Organisation>().toEqualTypeOf<z.infer<typeof rt.organisation>>();
    expectTypeOf<sdk.OrganisationRenamed>().toEqualTypeOf<z.infer<typeof rt.organisationSettings>>();
    expectTypeOf<sdk.Invitation>().toEqualTypeOf<z.infer<typeof rt.invitation>>();
    expectTypeOf<sdk.InvitationList>().toEqualTypeOf<z.infer<typeof rt.invitationList>>();
    expectTypeOf<sdk.InvitationCreated>().toEqualTypeOf<z.infer<typeof rt.invitationCreated>>();
    expectTypeOf<sdk.InvitationRevoked>().toEqualTypeOf<z.infer<typeof rt.invitationRevoked>>();
    expectTypeOf<sdk.InvitationAccepted>().toEqualTypeOf<z.infer<typeof rt.invitationAccepted>>();
    expectTypeOf<sdk.ErrorBody['error']>().toMatchTypeOf<string>();
  });

  it('accept what the request schemas accept', () => {
    expectTypeOf<sdk.BulkInput>().toEqualTypeOf<z.input<typeof req.bulkBody>>();
    expectTypeOf<sdk.WebhookInput>().toEqualTypeOf<z.input<typeof req.webhookBody>>();
    expectTypeOf<sdk.RuleInput>().toEqualTypeOf<z.input<typeof req.ruleBody>>();
    expectTypeOf<sdk.KeyInput>().toEqualTypeOf<z.input<typeof req.keyBody>>();
    expectTypeOf<sdk.KeyUpdateInput>().toEqualTypeOf<z.input<typeof req.keyUpdateBody>>();
    expectTypeOf<sdk.PasswordChangeInput>().toEqualTypeOf<z.input<typeof req.passwordChangeBody>>();
    expectTypeOf<sdk.AuditAction>().toEqualTypeOf<NonNullable<z.input<typeof req.auditQuery>['action']>>();
    expectTypeOf<sdk.OrganisationUpdateInput>().toEqualTypeOf<z.input<typeof req.organisationBody>>();
    expectTypeOf<sdk.TwoFactorDisableInput>().toEqualTypeOf<z.input<typeof req.twoFactorDisableBody>>();
    expectTypeOf<sdk.MemberUpdate>().toEqualTypeOf<z.input<typeof req.memberUpdateBody>>();
    expectTypeOf<sdk.InvitationInput>().toEqualTypeOf<z.input<typeof req.invitationBody>>();
  });
});
