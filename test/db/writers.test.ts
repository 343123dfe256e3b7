/**
 * A store function that writes takes a transaction (`Tx`), never the database handle
 * (docs/adr/0058-writers-take-a-transaction.md): the compiler refuses the handle, so a state change
 * cannot be written apart from the ledger entry or webhook event that must commit with it. The
 * type assertions below fail the typecheck the day a writer takes the handle again; at run time the
 * background work's fenced handle refuses such a write too.
 */
import path from 'node:path';
import { afterEach, expect, expectTypeOf, it } from 'vitest';
import { listAudit, recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import {
  fencedDb,
  UnfencedWriteError,
  writeTx,
  type Database,
  type Db,
  type Executor,
  type Tx,
} from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { post } from '../../src/ledger/service.js';
import { transitionPayout } from '../../src/payouts/transitions.js';
import { recordEvent } from '../../src/webhooks/outbox.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

const open: Database[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
});

it('the database handle is not a transaction; a transaction serves every reader', () => {
  expectTypeOf<Db>().not.toExtend<Tx>();
  expectTypeOf<Tx>().toExtend<Executor>();
  // The writers whose changes carry a ledger entry or a webhook event.
  expectTypeOf<Db>().not.toExtend<Parameters<typeof post>[0]>();
  expectTypeOf<Db>().not.toExtend<Parameters<typeof recordEvent>[0]>();
  expectTypeOf<Db>().not.toExtend<Parameters<typeof transitionPayout>[0]>();
  expectTypeOf<Db>().not.toExtend<Parameters<typeof recordAudit>[0]>();
});

it('a writer handed the fenced handle writes nothing; handed its transaction, the write commits', async () => {
  const d = await openTestDatabase(path.join(tempDir(), 'writers.db'));
  open.push(d);
  await migrateToLatest(d.db);
  const fenced = fencedDb(d.db, async () => {});
  const entry = { actor: 't', action: 'probe', subjectType: 'p', subjectId: 'x' };

  // @ts-expect-error a writer takes a transaction, not the database handle
  await expect(recordAudit(fenced, systemClock, entry)).rejects.toBeInstanceOf(UnfencedWriteError);
  expect(await listAudit(d.db, 'p', 'x')).toEqual([]);

  await writeTx(fenced, (trx) => recordAudit(trx, systemClock, entry));
  expect((await listAudit(d.db, 'p', 'x')).map((r) => r.action)).toEqual(['probe']);
});
