/**
 * Seeds a paygate database at scale for bench/scale.ts: `invoices` invoices over 10 merchants (each
 * with its own per-invoice address), their deposits, `permanent` permanent (per_user) addresses,
 * one `invoice.created` event per invoice and 1 payout per 20 invoices, in the row shapes the app
 * writes. The schema comes from the real migrations and the merchants, keys and wallet from the
 * real services; the bulk rows are inserted with prepared statements in large transactions
 * (synchronous=OFF while seeding: this is a fixture, not a payment). Addresses are unique
 * placeholders of the TRON shape (no derivation: a million would take minutes of curve math);
 * the wallet's counter is moved past their indexes so new invoices derive fresh ones.
 *
 * Merchant 0 (per_invoice, approved) gets 1/10 of everything; bench runs read and create as it.
 *
 *   npx tsx bench/lib/seed.ts --invoices 1000000 --permanent 100000 --out /tmp/paygate-1m/paygate.db
 */
import Sqlite from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fromHexAddress } from '../../src/chain/address.js';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { timeOrderedId, uuidv7 } from '../../src/db/ids.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { overdueCreated } from '../../src/invoices/store.js';
import { changeMerchant, createMerchant } from '../../src/merchants/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { scanHorizon } from '../../src/watcher/store.js';

export interface SeedOptions {
  invoices: number;
  permanent: number;
}

export interface Seeded {
  file: string;
  /** Merchant 0: per_invoice, approved, 1/10 of the rows. */
  merchantId: string;
  seconds: number;
}

/** Raised when what a seeded database holds changes, so an older one is seeded again, not reused. */
const SEED_VERSION = 4;
const MERCHANTS = 10;
const STATUSES = [
  'settled',
  'settled',
  'settled',
  'settled',
  'settled',
  'settled',
  'settled',
  'expired',
  'expired',
  'confirmed',
  'seen',
  'underpaid',
  'paid_late',
  'created',
] as const;

/** A unique placeholder of the shape of a TRON address (T + 33 base58 characters). */
/** A valid TRON address no key controls, so the watcher and the sweeper can read it like any other. */
function fakeAddress(i: number): string {
  return fromHexAddress(`41${createHash('sha256').update(`seed-address-${i}`).digest('hex').slice(0, 40)}`);
}

const hex64 = (seed: string) => createHash('sha256').update(seed).digest('hex');

export function envFor(file: string): Record<string, string> {
  return {
    DATABASE_URL: file,
    WALLET_KEYSTORE: path.join(path.dirname(file), 'keystore.json'),
    WALLET_PASSPHRASE: 'benchmark passphrase',
    TRON_NETWORK: 'devnet',
    LOG_LEVEL: 'warn',
  };
}

async function setup(file: string): Promise<string[]> {
  const config = parseConfig(envFor(file));
  const database = openDatabase(file);
  await migrateToLatest(database.db);
  await initWallet(database.db, systemClock, 'seed', config);
  const ids: string[] = [];
  for (let m = 0; m < MERCHANTS; m++) {
    const created = await createMerchant(database.db, systemClock, 'seed', {
      name: `Seed shop ${m}`,
      ...(m >= 1 && m <= 4 ? { addressMode: 'per_user' as const } : {}),
    });
    await changeMerchant(database.db, systemClock, 'seed', created.merchant_id, 'approve');
    ids.push(created.merchant_id);
  }
  await database.close();
  return ids;
}

function bulk(file: string, merchants: string[], o: SeedOptions): void {
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const address = db.prepare(
    'insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, ?, ?)',
  );
  const invoice = db.prepare(
    `insert into invoices (id, merchant_id, order_id, status, asset, network, decimals, address, address_index, external_user_id, amount_requested, amount_expected,
       amount_received, amount_credited, service_fee_payer, service_fee_percent, service_fee_fixed, service_fee_amount, return_url, cancel_url,
       expires_at, created_at, updated_at) values (?, ?, ?, ?, 'USDT_TRON', 'tron', 6, ?, ?, null, ?, ?, ?, ?, 'merchant', '1', '0', ?, null, null, ?, ?, ?)`,
  );
  const deposit = db.prepare(
    `insert into deposits (id, merchant_id, address, asset, decimals, amount, tx_hash, log_index, from_address, block_number, block_hash, block_time,
       invoice_id, external_user_id, late, status, confirmations, final, credited_at, created_at, updated_at)
     values (?, ?, ?, 'USDT_TRON', 6, ?, ?, 0, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const event = db.prepare(
    `insert into events (id, merchant_id, type, subject_id, data, created_at) values (?, ?, 'invoice.created', ?, ?, ?)`,
  );
  // A database in its steady state has swept (or checked) every address with final deposits.
  const swept = db.prepare(
    `insert into sweep_marks (address, asset, checked_block, balance, checked_at) values (?, 'USDT_TRON', ?, '0', ?)`,
  );
  const payout = db.prepare(
    `insert into payouts (id, merchant_id, reference, status, asset, network, decimals, to_address, amount, fee_amount, fee_charged, fee_schedule_id,
       review_reasons, tx_hash, reviewed_by, reviewed_at, reject_reason, created_at, updated_at)
     values (?, ?, ?, ?, 'USDT_TRON', 'tron', 6, 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', '5000000', '1000000', ?, null, '[]', ?, null, null, null, ?, ?)`,
  );
  // Spread over the last 400 days, oldest first, as a live database grows.
  const start = Date.now() - 400 * 86_400_000;
  const step = (400 * 86_400_000) / Math.max(1, o.invoices);
  const iso = (ms: number) => new Date(ms).toISOString();
  const CHUNK = 50_000;
  let index = 0;
  for (let from = 0; from < o.invoices; from += CHUNK) {
    db.transaction(() => {
      for (let i = from; i < Math.min(o.invoices, from + CHUNK); i++) {
        const m = i % MERCHANTS;
        const merchant = merchants[m]!;
        const created = start + i * step;
        const at = iso(created);
        // The newest ones are still open (created, expiring in the future); older ones ran their course.
        const fresh = o.invoices - i <= o.invoices / 100;
        // Next to them, the last 200 paid ones wait for their blocks to turn final (seen or
        // confirmed, uncredited): as in a running system, where only the deposits of the last
        // minute or so are not final yet, and every final one has been credited.
        const open = !fresh && o.invoices - i <= o.invoices / 100 + 200;
        const settledOr = (st: (typeof STATUSES)[number]) => (st === 'seen' || st === 'confirmed' ? 'settled' : st);
        const status = fresh
          ? 'created'
          : open
            ? i % 2
              ? 'seen'
              : 'confirmed'
            : settledOr(STATUSES[i % (STATUSES.length - 1)]!);
        const expires = status === 'created' ? iso(Date.now() + 3_600_000) : iso(created + 3_600_000);
        const addr = fakeAddress(index);
        const addrIndex = index++;
        address.run(addr, addrIndex, merchant, null, at);
        const id = uuidv7(created); // as the app makes them: time-ordered (src/db/ids.ts)
        const paid = status !== 'created' && status !== 'expired';
        const amount = String(1_000_000 + (i % 5_000) * 1_000);
        const received = paid ? (status === 'underpaid' ? '500000' : amount) : '0';
        invoice.run(
          id,
          merchant,
          `seed-${i}`,
          status,
          addr,
          addrIndex,
          amount,
          amount,
          received,
          paid && !open ? received : '0',
          '10000',
          expires,
          at,
          at,
        );
        event.run(timeOrderedId('evt_', created), merchant, id, `{"invoice_id":"${id}","status":"created"}`, at);
        if (paid) {
          const block = 60_000_000 + i;
          deposit.run(
            uuidv7(created + 60_000),
            merchant,
            addr,
            received,
            hex64(`t${i}`),
            block,
            hex64(`b${block}`),
            iso(created + 60_000),
            id,
            null,
            status === 'paid_late' ? 1 : 0,
            status === 'seen' ? 'seen' : 'confirmed',
            open ? 3 : 20,
            open ? 0 : 1,
            open ? null : iso(created + 120_000),
            iso(created + 60_000),
            iso(created + 120_000),
          );
          if (!open) swept.run(addr, block, iso(created + 180_000));
        }
        if (i % 20 === 0) {
          const st = i % 100 === 0 ? 'pending_review' : 'confirmed';
          payout.run(
            randomUUID(),
            merchant,
            `seed-payout-${i}`,
            st,
            st === 'confirmed' ? '1000000' : '0',
            st === 'confirmed' ? hex64(`p${i}`) : null,
            at,
            at,
          );
        }
      }
    })();
  }
  // Permanent addresses of the per_user merchants (1..4).
  for (let from = 0; from < o.permanent; from += CHUNK) {
    db.transaction(() => {
      for (let u = from; u < Math.min(o.permanent, from + CHUNK); u++)
        address.run(fakeAddress(index), index++, merchants[1 + (u % 4)]!, `user-${u}`, iso(start + u));
    })();
  }
  db.prepare('update wallet set next_index = ? where id = 1').run(index);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('analyze');
  db.close();
}

/** Seeds `file` (its directory is emptied first). */
export async function seed(file: string, o: SeedOptions): Promise<Seeded> {
  const t0 = performance.now();
  rmSync(path.dirname(file), { recursive: true, force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  const merchants = await setup(file);
  bulk(file, merchants, o);
  const seeded = { file, merchantId: merchants[0]!, seconds: (performance.now() - t0) / 1000 };
  writeFileSync(
    path.join(path.dirname(file), 'seeded.json'),
    JSON.stringify({ ...o, ...seeded, version: SEED_VERSION }),
  );
  return seeded;
}

function flushToDisk(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The database seeded with `o` in `dir` (seeded once, kept while the sizes match), as a fresh copy
 * for this run in `dir/run`. Benches write to the database they measure (every creation adds an
 * invoice and its address): reused as is, the "1,000,000" database had grown to 4.5 million
 * invoices after a few days of runs, and its figures described that. The seeded file itself is
 * never opened again.
 */
export async function seededIn(
  dir: string,
  o: SeedOptions,
): Promise<Seeded & { reused: boolean; copySeconds: number }> {
  const marker = path.join(dir, 'seeded.json');
  let seeded: (Seeded & { reused: boolean }) | undefined;
  if (existsSync(marker)) {
    const m = JSON.parse(readFileSync(marker, 'utf8')) as SeedOptions & Seeded & { version?: number };
    if (m.version === SEED_VERSION && m.invoices === o.invoices && m.permanent === o.permanent && existsSync(m.file))
      seeded = { ...m, reused: true };
  }
  seeded ??= { ...(await seed(path.join(dir, 'paygate.db'), o)), reused: false };
  const t0 = performance.now();
  const run = path.join(dir, 'run');
  rmSync(run, { recursive: true, force: true });
  mkdirSync(run, { recursive: true });
  const file = path.join(run, 'paygate.db');
  // A -wal next to the seeded file holds part of its content: it is copied with it.
  for (const suffix of ['', '-wal'])
    if (existsSync(seeded.file + suffix)) copyFileSync(seeded.file + suffix, file + suffix);
  // Written to the disk before anything is measured: the kernel would otherwise write the copy's
  // dirty pages back (2 GB for a million invoices) during the first measurements. One bench run
  // measured the point read at 26.6 µs on 1M against 7.5-8.0 µs in runs after that write-back.
  for (const suffix of ['', '-wal']) if (existsSync(file + suffix)) flushToDisk(file + suffix);
  copyFileSync(path.join(path.dirname(seeded.file), 'keystore.json'), path.join(run, 'keystore.json'));
  return { ...seeded, file, copySeconds: (performance.now() - t0) / 1000 };
}

if (process.argv[1] === import.meta.filename) {
  const arg = (name: string, dflt: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? (process.argv[i + 1] as string) : dflt;
  };
  const s = await seed(arg('out', '/tmp/paygate-seed/paygate.db'), {
    invoices: Number(arg('invoices', '1000000')),
    permanent: Number(arg('permanent', '100000')),
  });
  console.log(`seeded ${s.file} in ${s.seconds.toFixed(0)} s; merchant 0 = ${s.merchantId}`);
}

/**
 * Waits until the server's expiry job has expired every invoice overdue by its own measure (the
 * chain time the watcher has scanned up to). A seeded database is reused between runs: the RSS
 * part of bench/scale.ts moves that horizon to the present, and the next server on the database
 * then expires, beside the load it is measured under, every invoice earlier runs created (an hour
 * each) — tens of thousands at once, where a running system expires them a few at a time.
 */
export async function overdueExpired(db: Db, log: (line: string) => void, timeoutMs = 300_000): Promise<void> {
  const horizon = ((await scanHorizon(db)) ?? new Date(0)).toISOString();
  const started = Date.now();
  while ((await overdueCreated(db, horizon, 1)).length > 0) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`overdue invoices still not expired after ${timeoutMs / 1000} s`);
    log('waiting for the expiry of the invoices earlier runs left overdue');
    await new Promise((r) => setTimeout(r, 2_000));
  }
}
