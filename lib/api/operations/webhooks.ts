import * as req from '../schemas';
import * as res from '../responses';
import { operation } from '../operation';

/** Webhook endpoints and their deliveries (docs/webhooks.md). */

export const createWebhook = operation({
  method: 'post',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Add an endpoint',
  description: 'URLs resolving to private, loopback, link-local or metadata addresses are refused unless EV_ALLOW_PRIVATE_NETWORKS=true.',
  body: req.webhookBody,
  ok: [201, res.webhookCreated],
  creates: true,
});

export const listWebhooks = operation({
  method: 'get',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'List endpoints',
  ok: [200, res.webhookList],
});

export const deleteWebhook = operation({
  method: 'delete',
  path: '/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Remove an endpoint',
  ok: [200, res.webhookDeleted],
  errors: [404],
});

export const listDeliveries = operation({
  method: 'get',
  path: '/v1/webhooks/{id}/deliveries',
  operationId: 'listDeliveries',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: "An endpoint's deliveries with every attempt",
  ok: [200, res.deliveryList],
  errors: [404],
});

export const testWebhook = operation({
  method: 'post',
  path: '/v1/webhooks/{id}/test',
  operationId: 'testWebhook',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Send a webhook.test event now',
  ok: [200, res.deliverySent],
  errors: [404],
  creates: true,
});

export const replayDelivery = operation({
  method: 'post',
  path: '/v1/webhooks/{id}/deliveries/{deliveryId}/replay',
  operationId: 'replayDelivery',
  tag: 'Webhooks',
  scope: 'webhooks',
  role: 'admin',
  summary: 'Send a past delivery again',
  description: 'The same payload (so the same `webhook-id`) as a new delivery, sent now.',
  ok: [200, res.deliverySent],
  errors: [404],
  creates: true,
});
