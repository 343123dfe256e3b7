/**
 * A merchant's two switches: the operator's (`merchant enable|disable`, the console) and the
 * owner's (the cabinet). The merchant accepts requests (API keys, invoices, payouts leaving the
 * worker's queue) only when neither is off, so neither side can undo the other's stop.
 */
import type { MerchantsTable } from '../db/schema.js';

export type SwitchOwner = 'operator' | 'owner';

type Switches = Pick<MerchantsTable, 'enabled' | 'owner_enabled'>;

/** Who has the merchant switched off, operator first; empty when it is enabled. */
export function disabledBy(m: Switches): SwitchOwner[] {
  const by: SwitchOwner[] = [];
  if (m.enabled !== 1) by.push('operator');
  if (m.owner_enabled !== 1) by.push('owner');
  return by;
}

/** Both switches on: the only state in which the merchant accepts requests. */
export function merchantEnabled(m: Switches): boolean {
  return m.enabled === 1 && m.owner_enabled === 1;
}
