/**
 * SIGKILL of a real `serve` process while webhooks are being delivered: mid-request (the receiver
 * holds the request open, and processes it after the sender died) and at random moments. After
 * each restart the new process takes the dead one's claims over; in the end the receiver, which
 * dedupes by webhook-id, has seen every event, first in merchant order, and every delivery is
 * `delivered`. A request the receiver processed while its sender died is delivered again (at
 * least once, never lost).
 */
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createMerchant } from '../../src/merchants/service.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { recordEvent } from '../../src/webhooks/outbox.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { ServeChildren } from '../helpers/serve-child.js';
import { startReceiver, type Answer } from './fixture.js';

const dir = tempDir('paygate-webhook-crash-');
const database = await openTestDatabase(path.join(dir, 'paygate.db'));
const DATABASE_URL = database.url;
const db = database.db;
const serves = new ServeChildren(new URL('./crash-child.ts', import.meta.url).pathname, () => ({ DATABASE_URL }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const startServe = () => serves.start();

afterAll(async () => {
  serves.killAll();
  await database.close();
});

describe('webhook delivery under SIGKILL of serve', () => {
  it(
    'delivers every event at least once, first in order, after kills mid-request and at random moments',
    { timeout: 120_000 },
    async () => {
      // The receiver answers 200 after a short pause; when told, it holds the next request open.
      let holdNext = false;
      const held: { id: string; answer: (a: Answer) => void }[] = [];
      const r = await startReceiver(async (got) => {
        if (holdNext) {
          holdNext = false;
          return new Promise<Answer>((answer) => held.push({ id: got.json.id, answer }));
        }
        await sleep(Math.random() * 20);
        return { status: 200 };
      });

      await migrateToLatest(db);
      const merchantId = (await createMerchant(db, systemClock, 'test', { name: 'Crash hooks' })).merchant_id;
      await setEndpoint(db, systemClock, 'test', merchantId, { url: r.url, allowPrivate: true });
      let n = 0;
      const emit = async (count: number) => {
        for (let i = 0; i < count; i++) {
          n++;
          await db.transaction().execute((trx) =>
            recordEvent(trx, systemClock, {
              merchantId,
              type: 'invoice.created',
              subjectId: `inv-${n}`,
              data: { n },
              key: `crash:${n}`,
            }),
          );
        }
      };
      await emit(10);

      const heldKills: string[] = [];
      for (let k = 0; k < 4; k++) {
        const serve = await startServe();
        await emit(5); // while serve runs, from another process
        if (k % 2 === 0) {
          // Mid-request: the receiver has the request; serve dies before it hears the answer.
          const before = held.length;
          holdNext = true;
          await vi.waitFor(() => expect(held.length).toBe(before + 1), { timeout: 10_000, interval: 10 });
          serve.child.kill('SIGKILL');
          await serve.exited;
          const h = held[held.length - 1]!;
          h.answer({ status: 200 }); // processed by the receiver; its sender is gone
          heldKills.push(h.id);
        } else {
          await sleep(50 + Math.random() * 400);
          serve.child.kill('SIGKILL');
          await serve.exited;
        }
      }

      const last = await startServe();
      const events = await db
        .selectFrom('events')
        .select(['id', 'merchant_seq'])
        .where('merchant_id', '=', merchantId)
        .orderBy('merchant_seq')
        .execute();
      expect(events).toHaveLength(10 + 4 * 5);
      await vi.waitFor(
        async () => {
          const open = await db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('merchant_id', '=', merchantId)
            .where('status', '!=', 'delivered')
            .execute();
          expect(open).toEqual([]);
        },
        { timeout: 30_000, interval: 100 },
      );
      last.child.kill('SIGTERM');
      await last.exited;

      // The receiver dedupes by webhook-id: it has every event, nothing else, first seen in order.
      const accepted = r.accepted().map((x) => x.headers['webhook-id'] as string);
      expect(r.accepted().every((x) => x.headers['webhook-id'] === x.json.id)).toBe(true);
      const firstSeen = [...new Set(accepted)];
      expect(firstSeen).toEqual(events.map((e) => e.id));
      // Each request held open when serve died was delivered again after the restart.
      expect(heldKills).toHaveLength(2);
      for (const id of heldKills) expect(accepted.filter((a) => a === id).length).toBeGreaterThanOrEqual(2);
      await r.close();
    },
  );
});
