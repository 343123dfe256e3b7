/** The SSRF guard, network failures, resend and the retention of the delivery log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTx } from '../../src/db/database.js';
import { AppError } from '../../src/errors.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { pruneDeliveryLog, resendDelivery, showDelivery } from '../../src/webhooks/service.js';
import { blockedReason, DNS_SLOTS, resolveTarget } from '../../src/webhooks/ssrf.js';
import { postWebhook } from '../../src/webhooks/transport.js';
import { attemptsOf, pruneAttemptsBefore } from '../../src/webhooks/store.js';
import { deliveryOf, openWebhookDb, startReceiver, type Receiver, type WebhookDb } from './fixture.js';

let w: WebhookDb;
let r: Receiver;
beforeAll(async () => {
  w = await openWebhookDb();
  r = await startReceiver();
});
afterAll(async () => {
  await r.close();
  await w.close();
});

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
};

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '::127.0.0.1',
    'ff02::1',
    '224.0.0.1',
  ])('refuses %s', (ip) => {
    expect(blockedReason(ip)).not.toBeNull();
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e'])(
    'allows the public address %s',
    (ip) => {
      expect(blockedReason(ip)).toBeNull();
    },
  );

  it('refuses a host name that resolves to loopback (localhost), and one with any private address', async () => {
    await expect(resolveTarget('localhost', false)).rejects.toThrow(/loopback/);
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget('mixed.example', false, mixed as never)).rejects.toThrow(/10\.0\.0\.7/);
  });

  it('refuses http and literal private addresses when the endpoint is set without --allow-private', async () => {
    const m = await w.merchant();
    expect(await code(setEndpoint(w.db, w.clock, 'test', m, { url: 'http://hooks.example/x' }))).toBe(
      'invalid_argument',
    );
    expect(await code(setEndpoint(w.db, w.clock, 'test', m, { url: 'https://127.0.0.1/x' }))).toBe('invalid_argument');
    expect(await code(setEndpoint(w.db, w.clock, 'test', m, { url: 'https://[::ffff:169.254.169.254]/x' }))).toBe(
      'invalid_argument',
    );
    expect(await code(setEndpoint(w.db, w.clock, 'test', m, { url: 'https://user:pw@hooks.example/x' }))).toBe(
      'invalid_argument',
    );
    expect(await code(setEndpoint(w.db, w.clock, 'test', 'no-such-merchant', { url: 'https://hooks.example/x' }))).toBe(
      'merchant_not_found',
    );
    expect(
      await w.db.selectFrom('webhook_endpoints').select('merchant_id').where('merchant_id', '=', m).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('never reaches a receiver on loopback for a merchant not allowed private targets, at any attempt', async () => {
    const m = await w.merchant();
    await w.endpoint(m, `https://localhost:${r.port}/hooks`, { allowPrivate: false });
    const id = await w.emit(m, 'invoice.created');
    const d = w.dispatcher();
    await d.dispatchDue();
    w.clock.advance(60_000);
    await d.dispatchDue();
    expect(r.received).toHaveLength(0);
    const log = await attemptsOf(w.db, (await deliveryOf(w.db, id)).id);
    expect(log).toHaveLength(2);
    expect(log.every((a) => a.status_code === null && /refused target localhost: .*loopback/.test(a.error ?? ''))).toBe(
      true,
    );
  });

  it('connects to the address it checked, not to a second DNS answer', async () => {
    const m = await w.merchant();
    await w.endpoint(m, `http://hooks.invalid:${r.port}/hooks`, { allowPrivate: true });
    const id = await w.emit(m, 'invoice.created');
    // hooks.invalid exists in no DNS: the request can only arrive through the checked answer.
    await w.dispatcher({ resolve: (async () => [{ address: '127.0.0.1', family: 4 }]) as never }).dispatchDue();
    expect(r.received.map((x) => x.json.id)).toEqual([id]);
    expect(r.received[0]!.headers.host).toBe(`hooks.invalid:${r.port}`);
  });
});

describe('a resolver that does not answer', () => {
  /** A lookup that answers only when told to; counts the lookups running at once. */
  function hangingResolver() {
    let running = 0;
    let most = 0;
    const pending: ((e: Error) => void)[] = [];
    const resolve = (() => {
      running += 1;
      most = Math.max(most, running);
      return new Promise((_ok, fail) =>
        pending.push((e) => {
          running -= 1;
          fail(e);
        }),
      );
    }) as never;
    return {
      resolve,
      most: () => most,
      started: () => pending.length,
      release: () => pending.splice(0).forEach((f) => f(new Error('ENOTFOUND'))),
    };
  }

  it('gives the attempt up at its timeout, and on shutdown, instead of waiting for the resolver', async () => {
    const dns = hangingResolver();
    const timedOut = await postWebhook('https://hangs.example.com/hook', {}, '{}', {
      allowPrivate: false,
      timeoutMs: 200,
      resolve: dns.resolve,
    });
    expect(timedOut).toMatchObject({ kind: 'error', error: 'DNS: timed out after 200 ms', blocked: false });
    const stop = new AbortController();
    const aborted = postWebhook('https://hangs.example.com/hook', {}, '{}', {
      allowPrivate: false,
      timeoutMs: 60_000,
      signal: stop.signal,
      resolve: dns.resolve,
    });
    stop.abort();
    expect(await aborted).toMatchObject({ kind: 'aborted' });
    dns.release();
  });

  it(`runs at most ${DNS_SLOTS} lookups at once (the thread pool that key checks share), the others wait their turn`, async () => {
    const dns = hangingResolver();
    const attempts = Array.from({ length: 6 }, (_, i) =>
      postWebhook(`https://m${i}.example.com/hook`, {}, '{}', {
        allowPrivate: false,
        timeoutMs: 300,
        resolve: dns.resolve,
      }),
    );
    const results = await Promise.all(attempts);
    expect(results.every((x) => x.kind === 'error' && x.error === 'DNS: timed out after 300 ms')).toBe(true);
    // The timed-out lookups still hold their slots (their threads are still busy): none more started.
    expect(dns.started()).toBe(DNS_SLOTS);
    dns.release();
    await new Promise((r) => setImmediate(r));
    // The attempts that waited gave up: no lookup is started for them once the slots are free.
    expect(dns.started()).toBe(0);
    expect(dns.most()).toBe(DNS_SLOTS);

    // Attempts still waiting get each freed slot in turn, never more than DNS_SLOTS at once.
    const waiting = Array.from({ length: 6 }, (_, i) =>
      postWebhook(`https://w${i}.example.com/hook`, {}, '{}', {
        allowPrivate: false,
        timeoutMs: 10_000,
        resolve: dns.resolve,
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(dns.started()).toBe(DNS_SLOTS);
    dns.release();
    await new Promise((r) => setImmediate(r));
    expect(dns.started()).toBe(DNS_SLOTS);
    while (dns.started() > 0) {
      dns.release();
      await new Promise((r) => setImmediate(r));
    }
    expect((await Promise.all(waiting)).every((x) => x.kind === 'error' && x.error === 'DNS: ENOTFOUND')).toBe(true);
    expect(dns.most()).toBe(DNS_SLOTS);
  });

  /** `dns` for every name but ok.example.com, which answers at once with the loopback receiver. */
  const withHealthy = (dns: ReturnType<typeof hangingResolver>) =>
    ((host: string, o: unknown) =>
      host === 'ok.example.com'
        ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
        : (dns.resolve as (h: string, o: unknown) => Promise<unknown>)(host, o)) as never;
  const drain = async (dns: ReturnType<typeof hangingResolver>) => {
    for (let i = 0; i < 20 && dns.started() > 0; i++) {
      dns.release();
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  it("a merchant whose name server never answers holds one lookup slot however often its lane retries: another merchant's delivery still resolves", async () => {
    const dns = hangingResolver();
    const resolve = withHealthy(dns);
    try {
      // The dispatcher's lane of that merchant: one attempt after another, each given up at its timeout.
      for (let i = 0; i < 3; i++) {
        const a = await postWebhook('https://hangs.example.com/hook', {}, '{}', {
          allowPrivate: false,
          timeoutMs: 100,
          resolve,
        });
        expect(a).toMatchObject({ kind: 'error', error: 'DNS: timed out after 100 ms' });
      }
      const other = await postWebhook(`http://ok.example.com:${r.port}/hooks`, {}, '{}', {
        allowPrivate: true,
        timeoutMs: 2_000,
        resolve,
      });
      expect(other).toMatchObject({ kind: 'response', status: 204 });
    } finally {
      await drain(dns);
    }
  });

  it('an attempt that gave up while waiting for a slot starts no lookup later: the freed slots go to deliveries still waiting', async () => {
    const dns = hangingResolver();
    const resolve = withHealthy(dns);
    try {
      // Four merchants whose name servers never answer: two lookups run, two attempts wait and time out.
      const given = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          postWebhook(`https://hangs${i}.example.com/hook`, {}, '{}', { allowPrivate: false, timeoutMs: 100, resolve }),
        ),
      );
      expect(given.every((x) => x.kind === 'error')).toBe(true);
      expect(dns.started()).toBe(DNS_SLOTS);
      dns.release(); // the system resolver's own timeout ends the two running lookups
      await new Promise((r) => setTimeout(r, 5));
      // Nobody waits for hangs3/hangs4 any more: their lookups must not take the slots again.
      expect(dns.started()).toBe(0);
      const other = await postWebhook(`http://ok.example.com:${r.port}/hooks`, {}, '{}', {
        allowPrivate: true,
        timeoutMs: 2_000,
        resolve,
      });
      expect(other).toMatchObject({ kind: 'response', status: 204 });
    } finally {
      await drain(dns);
    }
  });
});

describe('network errors, resend, retention', () => {
  it('retries a refused connection, and resends only a failed delivery', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    const m = await w.merchant();
    await w.endpoint(m, url);
    const id = await w.emit(m, 'payout.confirmed');
    await w.dispatcher().dispatchDue();
    const d = await deliveryOf(w.db, id);
    expect(d.status).toBe('pending');
    expect(d.last_status_code).toBeNull();
    expect(d.last_error).toMatch(/ECONNREFUSED/);

    expect(await code(resendDelivery(w.db, w.clock, 'test', d.id))).toBe('delivery_not_failed');
    expect(await code(resendDelivery(w.db, w.clock, 'test', 'dlv_000000000000000000000000'))).toBe(
      'delivery_not_found',
    );
    expect(await code(resendDelivery(w.db, w.clock, 'test', 'not-an-id'))).toBe('delivery_not_found');
    expect(await code(resendDelivery(w.db, w.clock, 'test', "'; drop table events; --"))).toBe('delivery_not_found');

    // The receiver answers 400 (a bug on its side): failed at once; fixed, the operator resends.
    await w.endpoint(m, r.url);
    const answer = r.answer;
    r.answer = () => ({ status: 400, body: 'bad payload' });
    w.clock.advance(60_000);
    await w.dispatcher().dispatchDue();
    expect((await deliveryOf(w.db, id)).status).toBe('failed');
    r.answer = answer;
    const resent = await resendDelivery(w.db, w.clock, 'test', d.id);
    expect(resent.status).toBe('pending');
    expect(await code(resendDelivery(w.db, w.clock, 'test', d.id))).toBe('delivery_not_failed');
    await w.dispatcher().dispatchDue();
    const shown = await showDelivery(w.db, d.id);
    expect(shown.status).toBe('delivered');
    expect(shown.attempts_log.map((a) => [a.status_code, a.outcome])).toEqual([
      [null, 'retry'],
      [400, 'failed'],
      [204, 'delivered'],
    ]);
    expect(shown.attempts_log[1]!.response_excerpt).toBe('bad payload');
    expect(r.accepted().at(-1)!.headers['webhook-id']).toBe(id);
    expect((await showDelivery(w.db, id)).delivery_id).toBe(d.id); // also found by its event id
  });

  it('keeps the delivery log for 60 days and prunes what is older', async () => {
    const m = await w.merchant();
    await w.endpoint(m, r.url);
    const old = await w.emit(m, 'invoice.created');
    await w.dispatcher().dispatchDue();
    w.clock.advance(59 * 86_400_000);
    const recent = await w.emit(m, 'invoice.expired');
    await w.dispatcher().dispatchDue();
    expect(await pruneDeliveryLog(w.db, w.clock)).toEqual({ attempts: 0, deliveries: 0 });
    w.clock.advance(2 * 86_400_000);
    const pruned = await pruneDeliveryLog(w.db, w.clock);
    expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
    expect(
      await w.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', old).executeTakeFirst(),
    ).toBeUndefined();
    const kept = await deliveryOf(w.db, recent);
    expect(await attemptsOf(w.db, kept.id)).toHaveLength(1);
  });

  it('prunes a large log in short transactions of `batch` rows, oldest attempts first, to the same end', async () => {
    const m = await w.merchant();
    await w.endpoint(m, r.url);
    const old: string[] = [];
    for (let i = 0; i < 5; i++) {
      old.push(await w.emit(m, 'invoice.created'));
      w.clock.advance(1_000);
    }
    // A round delivers the oldest pending delivery of each merchant.
    while ((await w.dispatcher().dispatchDue()) > 0);
    w.clock.advance(61 * 86_400_000);
    const recent = await w.emit(m, 'invoice.expired');
    await w.dispatcher().dispatchDue();
    const cutoff = new Date(w.clock.now().getTime() - 60 * 86_400_000).toISOString();
    const count = async (table: 'webhook_attempts' | 'webhook_deliveries') =>
      Number(
        (
          await w.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const attemptsBefore = await count('webhook_attempts');
    const oldAttempts = await w.db
      .selectFrom('webhook_attempts')
      .select(['id', 'at'])
      .where('at', '<', cutoff)
      .orderBy('at')
      .execute();
    expect(oldAttempts.length).toBeGreaterThanOrEqual(5);

    // One batch: the two oldest attempts only.
    expect(await writeTx(w.db, (trx) => pruneAttemptsBefore(trx, cutoff, 2))).toBe(2);
    expect(await count('webhook_attempts')).toBe(attemptsBefore - 2);
    const left = await w.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where(
        'id',
        'in',
        oldAttempts.map((a) => a.id),
      )
      .execute();
    expect(left.map((a) => a.id).sort()).toEqual(
      oldAttempts
        .slice(2)
        .map((a) => a.id)
        .sort(),
    );

    // The job, in batches of 2: everything old goes, what is recent stays.
    const oldDeliveries = await w.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', ['delivered', 'failed'])
      .where('updated_at', '<', cutoff)
      .execute();
    expect(await pruneDeliveryLog(w.db, w.clock, 60, 2)).toEqual({
      attempts: oldAttempts.length - 2,
      deliveries: oldDeliveries.length,
    });
    expect(await w.db.selectFrom('webhook_attempts').select('id').where('at', '<', cutoff).execute()).toEqual([]);
    expect(
      await w.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('updated_at', '<', cutoff)
        .where('status', '!=', 'pending')
        .execute(),
    ).toEqual([]);
    for (const e of old)
      expect(
        await w.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', e).executeTakeFirst(),
      ).toBeUndefined();
    expect(await attemptsOf(w.db, (await deliveryOf(w.db, recent)).id)).toHaveLength(1);
  });
});

describe('https', () => {
  it('verifies the receiver certificate (an untrusted one is a retried network error)', async () => {
    const { readFileSync } = await import('node:fs');
    const https = await import('node:https');
    const dir = new URL('./tls/', import.meta.url);
    let hits = 0;
    const server = https.createServer(
      { key: readFileSync(new URL('localhost.key', dir)), cert: readFileSync(new URL('localhost.crt', dir)) },
      (_req, res) => {
        hits++;
        res.end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as import('node:net').AddressInfo).port;
    try {
      const m = await w.merchant();
      await w.endpoint(m, `https://localhost:${port}/hooks`, { allowPrivate: true });
      const id = await w.emit(m, 'invoice.created');
      await w.dispatcher().dispatchDue();
      const d = await deliveryOf(w.db, id);
      expect(d.status).toBe('pending');
      expect(d.last_error).toMatch(/self[- ]signed|certificate/i);
      expect(hits).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
