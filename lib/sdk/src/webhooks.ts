import type { RequestOptions, Transport } from './client.ts';
import type { Delivery, DeliverySent, Webhook, WebhookCreated, WebhookInput } from './webhook-types.ts';

const path = (id: string) => encodeURIComponent(id);

/** Webhook endpoints and their deliveries: /v1/webhooks… (checking a delivery's signature is webhook.ts). */
export class Webhooks {
  constructor(private readonly t: Transport) {}

  /** The answer holds the signing `secret`, shown this once. */
  create(input: WebhookInput, options?: RequestOptions): Promise<WebhookCreated> {
    return this.t.json('POST', '/v1/webhooks', { ...options, body: input });
  }

  async list(options?: RequestOptions): Promise<Webhook[]> {
    return (await this.t.json<{ data: Webhook[] }>('GET', '/v1/webhooks', options)).data;
  }

  delete(id: string, options?: RequestOptions): Promise<{ success: true; id: string; deleted: true }> {
    return this.t.json('DELETE', `/v1/webhooks/${path(id)}`, options);
  }

  /** The latest 50 deliveries with every attempt. */
  async deliveries(id: string, options?: RequestOptions): Promise<Delivery[]> {
    return (await this.t.json<{ data: Delivery[] }>('GET', `/v1/webhooks/${path(id)}/deliveries`, options)).data;
  }

  /** Sends a `webhook.test` event now. */
  test(id: string, options?: RequestOptions): Promise<DeliverySent> {
    return this.t.json('POST', `/v1/webhooks/${path(id)}/test`, options);
  }

  replay(id: string, deliveryId: string, options?: RequestOptions): Promise<DeliverySent> {
    return this.t.json('POST', `/v1/webhooks/${path(id)}/deliveries/${path(deliveryId)}/replay`, options);
  }
}
