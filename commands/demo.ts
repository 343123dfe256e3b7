import { Flags } from '@oclif/core';
import { PaygateCommand } from '../src/cli/base.js';
import { durationFlag } from '../src/cli/flags.js';
import type { DemoInfo } from '../src/demo/index.js';
import { demoInstructions } from '../src/demo/instructions.js';
import { runTour, type TourStep } from '../src/demo/tour.js';
import { AppError } from '../src/errors.js';

export default class Demo extends PaygateCommand {
  static override description =
    "Start a throwaway instance: temporary database and wallet, embedded simulated TRON node, two demo merchants with keys, a funded hot wallet, a webhook receiver, the owners' cabinet with a login; --tour runs the whole story by itself";
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --tour',
    '<%= config.bin %> demo --port 0 --block-time 500ms --json',
  ];
  static override flags = {
    port: Flags.integer({ description: 'API port (0 = any free port)', default: 8080, min: 0, max: 65535 }),
    'cabinet-port': Flags.integer({
      description: "the owners' cabinet port (default 9091; any free port with --tour or --port 0)",
      min: 0,
      max: 65535,
    }),
    'pay-port': Flags.integer({
      description: 'the payment page port (default 8082; any free port with --tour or --port 0)',
      min: 0,
      max: 65535,
    }),
    'block-time': durationFlag({ description: 'devnet time between blocks', default: '1s', maxMs: 3_600_000 }),
    tour: Flags.boolean({
      description:
        'run the story (invoice paid and settled, payout confirmed, webhooks) narrated, then exit: 0 only if every step happened',
    }),
  };

  async run(): Promise<(DemoInfo & { stopped: true }) | { tour: TourStep[] }> {
    const { flags } = await this.parse(Demo);
    // Imported here, not at the top: oclif imports every command module to list the commands, and
    // the demo's devnet loads tronweb, which `serve` must not carry
    // (docs/adr/0028-tronweb-only-where-signing.md).
    const { startDemo } = await import('../src/demo/index.js');
    const demo = await startDemo({
      port: flags.tour ? 0 : flags.port,
      cabinetPort: flags.tour || flags.port === 0 ? (flags['cabinet-port'] ?? 0) : (flags['cabinet-port'] ?? 9091),
      payPort: flags.tour || flags.port === 0 ? (flags['pay-port'] ?? 0) : (flags['pay-port'] ?? 8082),
      blockTimeMs: flags['block-time'],
      logLevel: 'warn',
      onEvent: (e) =>
        this.say(
          `webhook → ${e.merchantName}: ${e.type} ${String(e.data.invoice_id ?? e.data.payout_id ?? e.data.tx_hash ?? '')} (${String(e.data.status ?? '')}) signature verified`,
        ),
    });
    if (flags.tour) {
      try {
        const steps = await runTour(demo, (line) => this.say(line));
        const failed = steps.filter((s) => !s.ok);
        if (failed.length > 0 || steps.length < 7)
          throw new AppError(
            'invalid_state',
            `the tour did not complete: ${failed.map((s) => s.step).join(', ') || 'a step did not run'}`,
          );
        this.say('The tour is complete: every step happened.');
        return { tour: steps };
      } finally {
        await demo.stop();
      }
    }
    this.say(demoInstructions(demo.info));
    // With --json the connection details are printed now; the final result follows on exit.
    if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(demo.info)}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await demo.stop();
    this.say('demo stopped; its temporary files are deleted');
    return { ...demo.info, stopped: true };
  }
}
