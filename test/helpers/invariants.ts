/**
 * The money invariant every chain test checks: the merchant ledger holds exactly the final
 * deposits minus fees, each booked once. One function, shared by every test that moves deposits.
 *
 * - every ledger entry booked from a deposit (`deposit:<tx>:<log>`) belongs to a credited deposit
 *   and carries exactly its credited amount; no deposit is booked twice;
 * - a credited deposit is final, confirmed and not orphaned;
 * - an invoice's amount_credited = max(0, its credited deposits − service fee) = what its deposits
 *   booked; amount_received = the sum of its live (not orphaned) deposits;
 * - a standalone deposit books its amount less its own fee;
 * - with `settled: true` (the watcher has caught up past the solid height): every final,
 *   confirmed, live deposit has been credited;
 * - every merchant ledger verifies (running totals, sequence).
 */
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { ledgerDepositProblems, type InvariantOptions } from './ledger-invariant.js';

export type { InvariantOptions } from './ledger-invariant.js';

export async function expectLedgerMatchesDeposits(db: Db, opts: InvariantOptions = {}): Promise<void> {
  expect(await ledgerDepositProblems(db, opts)).toEqual([]);
}
