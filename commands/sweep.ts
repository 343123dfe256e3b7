import { Flags } from '@oclif/core';
import { loadCatalog } from '../src/assets/catalog.js';
import { PaygateCommand } from '../src/cli/base.js';
import { durationFlag } from '../src/cli/flags.js';
import { table } from '../src/cli/format.js';
import { requestSweep, waitForSweepRequest, type SweepRequestView } from '../src/sweeper/requests.js';

export default class Sweep extends PaygateCommand {
  static override description =
    'Sweep deposit addresses into the hot wallet now, whatever the thresholds: one address (--address) or every address holding something. The running serve signs; progress goes to stderr';
  static override examples = [
    '<%= config.bin %> sweep',
    '<%= config.bin %> sweep --address TCLBgkbfVkJroVBJVqBEsxtPNQEQMTQCLQ --json',
  ];
  static override flags = {
    address: Flags.string({ description: 'only this deposit address (every asset it holds)' }),
    timeout: durationFlag({ description: 'how long to follow the sweeps before returning', default: '10m' }),
  };

  async run(): Promise<SweepRequestView> {
    const { flags } = await this.parse(Sweep);
    const ctx = await this.context();
    const catalog = loadCatalog(ctx.config.tronNetwork);
    const id = await requestSweep(ctx.database.db, ctx.clock, ctx.actor, flags.address ?? null);
    // Progress goes to stderr in both modes, so stdout stays one JSON document with --json.
    const progress = (line: string) => process.stderr.write(`${line}\n`);
    progress(`sweep request ${id} queued for the running serve`);
    const v = await waitForSweepRequest(ctx.database.db, catalog, id, { timeoutMs: flags.timeout, progress });
    const rows = v.targets.map((t) => ({
      address: t.address,
      asset: t.asset,
      state: t.state,
      moved: t.sweep?.amount,
      cost_trx: t.sweep?.fee_trx,
      sweep: t.sweep?.sweep_id,
    }));
    this.say(table(rows, ['address', 'asset', 'state', 'moved', 'cost_trx', 'sweep']));
    return v;
  }
}
