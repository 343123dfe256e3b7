import { Flags } from '@oclif/core';
import { PaygateCommand } from '../src/cli/base.js';
import { durationFlag } from '../src/cli/flags.js';
import { demoInstructions, startDemo, type DemoInfo } from '../src/demo.js';

export default class Demo extends PaygateCommand {
  static override description =
    'Start a throwaway instance: temporary database, embedded simulated TRON node, a demo merchant and API key, ready for curl';
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --port 0 --block-time 1s'];
  static override flags = {
    port: Flags.integer({ description: 'API port (0 = any free port)', default: 8080, min: 0, max: 65535 }),
    'block-time': durationFlag({ description: 'devnet time between blocks', default: '3s', maxMs: 3_600_000 }),
  };

  async run(): Promise<DemoInfo & { stopped: true }> {
    const { flags } = await this.parse(Demo);
    const demo = await startDemo({ port: flags.port, blockTimeMs: flags['block-time'], logLevel: 'warn' });
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
