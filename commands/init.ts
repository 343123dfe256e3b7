import { Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { checkChainAtStart } from '../src/chain/identity.js';
import { PaygateCommand } from '../src/cli/base.js';
import { AppError } from '../src/errors.js';
import { initWallet, type InitResult } from '../src/wallet/service.js';

export default class Init extends PaygateCommand {
  static override description =
    'Create the encrypted wallet keystore (WALLET_KEYSTORE, passphrase from WALLET_PASSPHRASE or WALLET_PASSPHRASE_FILE) and print the new mnemonic once; --mnemonic-file restores an existing one. Records the chain the node serves (its genesis block) and refuses a node of another chain (wrong_network), or a database whose worker lease is live (stop serve first)';
  static override appliesMigrations = true;
  static override examples = [
    'WALLET_PASSPHRASE_FILE=/run/secrets/pass <%= config.bin %> init',
    '<%= config.bin %> init --mnemonic-file ./mnemonic.txt',
  ];
  static override flags = {
    'mnemonic-file': Flags.string({
      description: 'restore from the BIP39 mnemonic in this file instead of generating one',
    }),
  };

  async run(): Promise<InitResult & { genesis_block_id: string | null }> {
    const { flags } = await this.parse(Init);
    const ctx = await this.context();
    let mnemonic: string | undefined;
    if (flags['mnemonic-file'] !== undefined) {
      try {
        mnemonic = readFileSync(flags['mnemonic-file'], 'utf8');
      } catch (e) {
        throw new AppError(
          'invalid_argument',
          `--mnemonic-file: cannot read ${flags['mnemonic-file']}: ${(e as Error).message}`,
        );
      }
    }
    // A node of another chain is refused before the keystore is written; one that does not answer
    // is recorded by serve at its first contact.
    const chain = await checkChainAtStart(ctx.database.db, ctx.clock, ctx.config, null);
    const r = await initWallet(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      ctx.config,
      mnemonic === undefined ? {} : { mnemonic },
    );
    this.say(`Keystore written to ${r.keystore}`);
    this.say(`Hot wallet      ${r.hot_address} (${r.hot_path})`);
    this.say(`Deposit xpub    ${r.deposit_xpub} (${r.deposit_path})`);
    if (r.mnemonic) {
      this.say('\nRecovery mnemonic. Write it down offline now: it is shown this once and never stored in clear.\n');
      this.say(`  ${r.mnemonic}\n`);
    }
    this.say(
      chain
        ? `Chain           genesis block ${chain.genesis_block_id} (${chain.network})`
        : 'Chain           not recorded yet: the node did not answer; serve records it at its first contact',
    );
    return { ...r, genesis_block_id: chain?.genesis_block_id ?? null };
  }
}
