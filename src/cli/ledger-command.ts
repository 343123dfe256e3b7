/** `ledger credit|debit <merchant> --asset --amount --memo [--reference]`: two corrections, one shape. */
import { Flags } from '@oclif/core';
import { loadCatalog } from '../assets/catalog.js';
import { creditMerchant, debitMerchant, type CreditView } from '../ledger/operator.js';
import { PaygateCommand } from './base.js';
import { idArg } from './flags.js';
import { record } from './format.js';

const KINDS = {
  credit: {
    run: creditMerchant,
    description: "Credit a merchant's balance in an asset (an operator correction: one ledger entry, audited)",
  },
  debit: {
    run: debitMerchant,
    description:
      "Debit a merchant's available balance in an asset, e.g. to undo a mistaken credit (one ledger entry, audited; never touches reserved money)",
  },
} as const;

const args = { merchant: idArg('merchant id') };
const flags = {
  asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
  amount: Flags.string({ required: true, description: 'amount in the asset, greater than zero' }),
  memo: Flags.string({ required: true, description: 'why (kept in the ledger entry and the audit log)' }),
  reference: Flags.string({
    description:
      'your reference for this correction (e.g. a ticket id): a repeat with the same reference and amount answers the entry already booked; with another amount it is refused (reference_conflict)',
  }),
};

export function ledgerCommand(kind: keyof typeof KINDS) {
  return class extends PaygateCommand {
    static override description = KINDS[kind].description;
    static override examples = [
      `<%= config.bin %> ledger ${kind} 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --asset USDT_TRON --amount 250 --memo "ticket 4411"`,
    ];
    static override args = args;
    static override flags = flags;

    async run(): Promise<CreditView> {
      const parsed = await this.parse({ args, flags, baseFlags: PaygateCommand.baseFlags, enableJsonFlag: true });
      const ctx = await this.context();
      const v = await KINDS[kind].run(
        ctx.database.db,
        ctx.clock,
        ctx.actor,
        loadCatalog(ctx.config.tronNetwork),
        parsed.args.merchant,
        {
          asset: parsed.flags.asset,
          amount: parsed.flags.amount,
          memo: parsed.flags.memo,
          reference: parsed.flags.reference ?? null,
        },
      );
      this.say(
        record({
          entry_id: v.entry_id,
          merchant_id: v.merchant_id,
          asset: v.asset,
          amount: v.amount,
          memo: v.memo,
          reference: v.reference,
          replayed: v.replayed,
          available: v.balance.available,
          reserved: v.balance.reserved,
          created_at: v.created_at,
        }),
      );
      return v;
    }
  };
}
