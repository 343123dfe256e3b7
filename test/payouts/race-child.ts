/**
 * Child process of race.test.ts: opens the same SQLite file as its siblings and fires `count`
 * identical or distinct payout creations at once, then prints each outcome as JSON.
 * argv: <db file> <merchant id> <to_address> <reference or "distinct"> <count>
 */
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { isAppError } from '../../src/errors.js';
import { findMerchant } from '../../src/merchants/store.js';
import { createPayout } from '../../src/payouts/service.js';

const [file, merchantId, toAddress, reference, count] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const database = openDatabase(file);
const merchant = (await findMerchant(database.db, merchantId))!;
const deps = { db: database.db, clock: systemClock, catalog: loadCatalog('devnet') };
const outcomes = await Promise.all(
  Array.from({ length: Number(count) }, async (_, i) => {
    const ref = reference === 'distinct' ? `${process.pid}-${i}` : reference;
    try {
      const r = await createPayout(deps, merchant, {
        reference: ref,
        asset: 'USDT_TRON',
        to_address: toAddress,
        amount: '10',
      });
      return { created: r.created, payout_id: r.payout.payout_id };
    } catch (e) {
      return { error: isAppError(e) ? e.code : String(e) };
    }
  }),
);
await database.close();
process.stdout.write(JSON.stringify(outcomes));
