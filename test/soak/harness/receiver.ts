/**
 * The merchants' webhook receiver on loopback: checks each request's Standard Webhooks signature
 * as docs/webhooks.md tells a merchant to (HMAC-SHA256 of `{id}.{timestamp}.{raw body}`, 300 s
 * window), answers 204, and keeps every delivery in arrival order for the checks.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  merchantId: string;
  eventId: string;
  type: string;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests refused: bad signature, bad timestamp, body id different from webhook-id. */
  readonly refused: string[] = [];
  private readonly secrets = new Map<string, string>();
  private server: Server | null = null;
  url = '';

  addMerchant(merchantId: string, secret: string): string {
    this.secrets.set(merchantId, secret);
    return `${this.url}/hooks/${merchantId}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const problem = this.accept(req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'));
        if (problem) this.refused.push(problem);
        res.writeHead(problem ? 400 : 204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private accept(url: string, headers: NodeJS.Dict<string | string[]>, raw: string): string | null {
    const merchantId = /^\/hooks\/([^/?]+)$/.exec(url)?.[1] ?? '';
    const secret = this.secrets.get(merchantId);
    const id = String(headers['webhook-id'] ?? '');
    const timestamp = String(headers['webhook-timestamp'] ?? '');
    if (!secret) return `delivery to an unknown path ${url}`;
    if (!/^[0-9]+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300)
      return `${id}: timestamp ${timestamp} outside the window`;
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${id}.${timestamp}.${raw}`)
      .digest();
    const ok = String(headers['webhook-signature'] ?? '')
      .split(' ')
      .some((entry) => {
        const [version, value] = entry.split(',');
        const given = Buffer.from(value ?? '', 'base64');
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
      });
    if (!ok) return `${id}: no matching signature`;
    let body: { id?: string; type?: string };
    try {
      body = JSON.parse(raw) as { id?: string; type?: string };
    } catch {
      return `${id}: body is not JSON`;
    }
    if (body.id !== id) return `${id}: body id ${body.id}`;
    this.received.push({ merchantId, eventId: id, type: String(body.type) });
    return null;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
