/**
 * The demo's webhook receiver: a loopback HTTP server that checks every delivery's Standard
 * Webhooks signature (by hand with node:crypto, as docs/webhooks.md shows) before it accepts it,
 * and keeps what it received for the tour. A delivery that does not verify is answered 401.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  id: string;
  type: string;
  merchantName: string;
  data: Record<string, unknown>;
}

export interface WebhookReceiver {
  url(merchantName: string): string;
  /** Registers the secret that signs a merchant's deliveries (printed once by `merchant webhook`). */
  trust(merchantName: string, secret: string): void;
  received: ReceivedEvent[];
  /** Deliveries refused because their signature did not verify. */
  refused: number;
  close(): Promise<void>;
}

/** True when one of the space-separated `v1,` signatures is the HMAC of id.timestamp.body. */
export function verifyStandardWebhook(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
  nowMs: number,
): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = Number(headers['webhook-timestamp']);
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((sig) => {
      const [version, mac] = sig.split(',');
      const given = Buffer.from(mac ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export async function startWebhookReceiver(onEvent: (e: ReceivedEvent) => void): Promise<WebhookReceiver> {
  const secrets = new Map<string, string>();
  const seen = new Set<string>();
  const received: ReceivedEvent[] = [];
  const receiver = { received, refused: 0 } as WebhookReceiver;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const merchantName = decodeURIComponent((req.url ?? '/').slice(1));
      const secret = secrets.get(merchantName);
      if (!secret || !verifyStandardWebhook(secret, req.headers, body, Date.now())) {
        receiver.refused++;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      // Deliveries are at least once: a receiver deduplicates by webhook-id.
      if (!seen.has(id)) {
        seen.add(id);
        const event = JSON.parse(body) as { type: string; data: Record<string, unknown> };
        const e = { id, type: event.type, merchantName, data: event.data };
        received.push(e);
        onEvent(e);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = (name) => `http://127.0.0.1:${port}/${encodeURIComponent(name)}`;
  receiver.trust = (name, secret) => void secrets.set(name, secret);
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
