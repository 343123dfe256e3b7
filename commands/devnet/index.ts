import { Flags } from '@oclif/core';
import pino from 'pino';
import { PaygateCommand } from '../../src/cli/base.js';
import { durationFlag } from '../../src/cli/flags.js';
import type { DevnetToken } from '../../src/devnet/index.js';

interface DevnetResult {
  url: string;
  stopped: true;
  tokens: DevnetToken[];
  accounts: { address: string; privateKey: string }[];
}

export default class Devnet extends PaygateCommand {
  static override description =
    'Run a simulated TRON full node (java-tron HTTP API on one port) with USDT/USDC/USDD-like tokens and funded test accounts, until Ctrl-C';
  static override examples = [
    '<%= config.bin %> devnet',
    '<%= config.bin %> devnet --port 8090 --block-time 1s --state ./devnet.json',
  ];

  static override flags = {
    port: Flags.integer({ description: 'HTTP port (0 = any free port)', default: 8090, min: 0, max: 65535 }),
    host: Flags.string({ description: 'interface to listen on', default: '127.0.0.1' }),
    'block-time': durationFlag({
      description: 'time between blocks; 0 = only when mined through /devnet/mine',
      default: '3s',
      maxMs: 3_600_000,
    }),
    'solid-lag': Flags.integer({ description: 'solid (irreversible) height = head - this', default: 19, min: 0 }),
    state: Flags.string({ description: 'JSON file to restore the chain from and save it to' }),
  };

  async run(): Promise<DevnetResult> {
    const { flags } = await this.parse(Devnet);
    // Request logs go to stderr so --json output stays clean; bodies (never keys) are not logged.
    const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
    // Imported here: oclif imports every command module to list the commands, and the devnet loads
    // tronweb, which `serve` must not carry.
    const { startDevnet } = await import('../../src/devnet/index.js');
    const devnet = await startDevnet({
      port: flags.port,
      host: flags.host,
      blockTimeMs: flags['block-time'],
      solidLag: flags['solid-lag'],
      ...(flags.state ? { stateFile: flags.state } : {}),
      logger,
    });
    const info = devnet.control.info();
    this.say(
      `TRON devnet listening on ${devnet.url}  (head ${info.head.number}, solid ${info.solid.number}, block time ${flags['block-time']} ms)`,
    );
    this.say(`  tronweb: new TronWeb({ fullHost: '${devnet.url}' })   control API: ${devnet.url}/devnet/info`);
    this.say('Token contracts:');
    for (const t of devnet.tokens)
      this.say(`  ${t.asset.padEnd(10)} ${t.address}  decimals ${t.decimals}  (${t.name})`);
    this.say(
      'Funded test accounts (1,000,000 TRX and 1,000,000 of each token; throwaway keys, never use them elsewhere):',
    );
    for (const a of devnet.accounts) this.say(`  ${a.address}  private key ${a.privateKey}`);
    this.say('Press Ctrl-C to stop.');
    if (this.jsonEnabled()) {
      // The JSON result is printed when the command returns; print the connection details now too.
      process.stdout.write(
        `${JSON.stringify({ url: devnet.url, tokens: devnet.tokens, accounts: devnet.accounts })}\n`,
      );
    }
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await devnet.close();
    this.say('devnet stopped');
    return { url: devnet.url, stopped: true, tokens: devnet.tokens, accounts: devnet.accounts };
  }
}
