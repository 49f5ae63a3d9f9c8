import type { Operation } from '../operation';
import * as verify from './verify';
import * as jobs from './jobs';
import * as webhooks from './webhooks';
import * as keys from './keys';
import * as account from './account';
import * as rules from './rules';
import * as data from './data';
import * as monitors from './monitors';
import * as teams from './teams';
import * as invitations from './invitations';
import * as installation from './installation';

export type { Operation } from '../operation';

/**
 * Every /v1 operation, declared once in the file of its area and named by its operationId: a route
 * file binds its handler to one (`apiRoute(operations.submitBulk, handler)`, lib/api/route.ts).
 */
export const operations = {
  verifySingle: verify.verifySingle,
  verify: verify.verify,
  submitBulk: jobs.submitBulk,
  listJobs: jobs.listJobs,
  jobStatus: jobs.jobStatus,
  downloadJob: jobs.downloadJob,
  cancelJob: jobs.cancelJob,
  listHistory: jobs.listHistory,
  createWebhook: webhooks.createWebhook,
  listWebhooks: webhooks.listWebhooks,
  deleteWebhook: webhooks.deleteWebhook,
  listDeliveries: webhooks.listDeliveries,
  testWebhook: webhooks.testWebhook,
  replayDelivery: webhooks.replayDelivery,
  listKeys: keys.listKeys,
  createKey: keys.createKey,
  updateKey: keys.updateKey,
  revokeKey: keys.revokeKey,
  getAccount: account.getAccount,
  signOutEverywhere: account.signOutEverywhere,
  changePassword: account.changePassword,
  getTwoFactor: account.getTwoFactor,
  startTwoFactor: account.startTwoFactor,
  confirmTwoFactor: account.confirmTwoFactor,
  disableTwoFactor: account.disableTwoFactor,
  listRules: rules.listRules,
  createRule: rules.createRule,
  importRules: rules.importRules,
  deleteRule: rules.deleteRule,
  getUsage: rules.getUsage,
  getQuota: rules.getQuota,
  setQuotaWarning: rules.setQuotaWarning,
  getRetention: data.getRetention,
  setRetention: data.setRetention,
  eraseAddress: data.eraseAddress,
  exportData: data.exportData,
  createMonitor: monitors.createMonitor,
  listMonitors: monitors.listMonitors,
  getMonitor: monitors.getMonitor,
  updateMonitor: monitors.updateMonitor,
  deleteMonitor: monitors.deleteMonitor,
  getReuse: monitors.getReuse,
  setReuse: monitors.setReuse,
  listOrganisations: teams.listOrganisations,
  renameOrganisation: teams.renameOrganisation,
  getOrganisation: teams.getOrganisation,
  listMembers: teams.listMembers,
  updateMember: teams.updateMember,
  removeMember: teams.removeMember,
  leaveOrganisation: teams.leaveOrganisation,
  listAuditEvents: teams.listAuditEvents,
  createInvitation: invitations.createInvitation,
  listInvitations: invitations.listInvitations,
  revokeInvitation: invitations.revokeInvitation,
  acceptInvitation: invitations.acceptInvitation,
  getEgress: installation.getEgress,
  getOpenApi: installation.getOpenApi,
};

/** The /v1 operations in the OpenAPI document's order (lib/api/openapi.ts). */
export const OPERATIONS: Operation[] = Object.values(operations);
