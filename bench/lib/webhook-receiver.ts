/**
 * A merchant's webhook receiver on loopback for the benchmarks: one path per merchant
 * (`/hooks/<n>`), each request's Standard Webhooks signature verified with that merchant's secret
 * (constant-time compare), the event counted once per webhook-id. Answers 204 to a valid
 * delivery and 401 to a bad signature (which the dispatcher then retries, and the bench reports).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  merchant: number;
  /** data.invoice_id when the event is about an invoice. */
  subject: string | null;
  /** performance.now() at receipt. */
  at: number;
}

export interface WebhookReceiver {
  url(merchant: number): string;
  setSecret(merchant: number, secret: string): void;
  /** First receipt of each event id. */
  readonly events: Map<string, ReceivedEvent>;
  readonly stats: { requests: number; duplicates: number; badSignatures: number };
  close(): Promise<void>;
}

function verify(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const want = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64'));
  return header.split(' ').some((sig) => {
    const got = Buffer.from(sig.replace(/^v1,/, ''));
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets = new Map<number, string>();
  const events = new Map<string, ReceivedEvent>();
  const stats = { requests: 0, duplicates: 0, badSignatures: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      stats.requests++;
      const merchant = Number(/^\/hooks\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const secret = secrets.get(merchant);
      if (
        !secret ||
        !verify(
          secret,
          id,
          String(req.headers['webhook-timestamp'] ?? ''),
          body,
          String(req.headers['webhook-signature'] ?? ''),
        )
      ) {
        stats.badSignatures++;
        res.writeHead(401).end();
        return;
      }
      if (events.has(id)) stats.duplicates++;
      else {
        const e = JSON.parse(body) as { type: string; data?: { invoice_id?: string } };
        events.set(id, { id, type: e.type, merchant, subject: e.data?.invoice_id ?? null, at: performance.now() });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (merchant) => `http://127.0.0.1:${port}/hooks/${merchant}`,
    setSecret: (merchant, secret) => void secrets.set(merchant, secret),
    events,
    stats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
