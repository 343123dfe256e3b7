/** The encrypted keystore, `init` (create and restore) and the wallet/database binding. */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { generateMnemonic } from '../../src/wallet/hd.js';
import { decryptKeystore, encryptMnemonic, readKeystore, type KeystoreFile } from '../../src/wallet/keystore.js';
import { initWallet, unlockWallet, walletSummary } from '../../src/wallet/service.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { openTestDatabase, testDatabaseUrl } from '../helpers/database.js';

const clock = new ManualClock('2026-03-01T10:00:00Z');

describe('keystore', () => {
  it('round-trips the mnemonic and refuses a wrong passphrase or an edited header', async () => {
    const file = await encryptMnemonic(TEST_MNEMONIC, TEST_PASSPHRASE, clock.now().toISOString(), CHEAP_SCRYPT);
    expect(JSON.stringify(file)).not.toContain('abandon');
    expect(file.kdf).toMatchObject({ name: 'scrypt', ...CHEAP_SCRYPT });
    expect(file.cipher.name).toBe('aes-256-gcm');
    const unlocked = await decryptKeystore(file, TEST_PASSPHRASE);
    expect(unlocked.mnemonic).toBe(TEST_MNEMONIC);
    expect(unlocked.depositXpub).toBe(file.deposit_xpub);

    await expect(decryptKeystore(file, 'wrong passphrase!!')).rejects.toMatchObject({ code: 'invalid_argument' });
    const other = await encryptMnemonic(generateMnemonic(), TEST_PASSPHRASE, '', CHEAP_SCRYPT);
    const swapped: KeystoreFile = { ...file, deposit_xpub: other.deposit_xpub };
    await expect(decryptKeystore(swapped, TEST_PASSPHRASE)).rejects.toMatchObject({ code: 'invalid_argument' });
    const flipped = { ...file, ciphertext: (file.ciphertext[0] === '0' ? '1' : '0') + file.ciphertext.slice(1) };
    await expect(decryptKeystore(flipped, TEST_PASSPHRASE)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('uses a fresh salt and IV every time', async () => {
    const a = await encryptMnemonic(TEST_MNEMONIC, TEST_PASSPHRASE, '', CHEAP_SCRYPT);
    const b = await encryptMnemonic(TEST_MNEMONIC, TEST_PASSPHRASE, '', CHEAP_SCRYPT);
    expect(a.kdf.salt).not.toBe(b.kdf.salt);
    expect(a.cipher.iv).not.toBe(b.cipher.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });
});

describe('init and unlock', () => {
  let dir: string;
  let database: Database;
  const configFor = (extra: Record<string, string> = {}) =>
    parseConfig({
      DATABASE_URL: path.join(dir, 'p.db'),
      WALLET_KEYSTORE: path.join(dir, 'ks.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      ...extra,
    });

  beforeAll(async () => {
    dir = tempDir();
    database = await openTestDatabase(path.join(dir, 'p.db'));
    await migrateToLatest(database.db);
  });
  afterAll(() => database.close());

  it('creates a 0600 keystore and the wallet row, refuses to overwrite, and unlocks', async () => {
    const config = configFor();
    const r = await initWallet(database.db, clock, 'test', config, { scrypt: CHEAP_SCRYPT });
    expect(r.mnemonic?.split(' ')).toHaveLength(24);
    expect(statSync(config.walletKeystore).mode & 0o777).toBe(0o600);
    expect(readFileSync(config.walletKeystore, 'utf8')).not.toContain(
      r.mnemonic!.split(' ')[0]! + ' ' + r.mnemonic!.split(' ')[1],
    );
    const s = await walletSummary(database.db);
    expect(s).toMatchObject({
      hot_address: r.hot_address,
      deposit_xpub: r.deposit_xpub,
      deposit_addresses_in_use: 0,
      next_index: 0,
    });

    await expect(initWallet(database.db, clock, 'test', config, { scrypt: CHEAP_SCRYPT })).rejects.toMatchObject({
      code: 'invalid_state',
    });
    const unlocked = await unlockWallet(database.db, clock, config);
    expect(unlocked.mnemonic).toBe(r.mnemonic);
    await expect(
      unlockWallet(database.db, clock, configFor({ WALLET_PASSPHRASE: 'not the passphrase' })),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('refuses to bind a database to a second seed, but restores the same seed', async () => {
    const other = configFor({ WALLET_KEYSTORE: path.join(dir, 'other.json') });
    await expect(
      initWallet(database.db, clock, 'test', other, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT }),
    ).rejects.toMatchObject({ code: 'invalid_state' });
    const original = readKeystore(configFor().walletKeystore);
    const unlocked = await decryptKeystore(original, TEST_PASSPHRASE);
    const restored = await initWallet(
      database.db,
      clock,
      'test',
      configFor({ WALLET_KEYSTORE: path.join(dir, 'restored.json') }),
      {
        mnemonic: unlocked.mnemonic,
        scrypt: CHEAP_SCRYPT,
      },
    );
    expect(restored).toMatchObject({ restored: true, mnemonic: null, deposit_xpub: original.deposit_xpub });
  });

  it('refuses short passphrases and invalid mnemonics', async () => {
    await expect(
      initWallet(
        database.db,
        clock,
        'test',
        configFor({ WALLET_PASSPHRASE: 'short', WALLET_KEYSTORE: path.join(dir, 'x.json') }),
      ),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      initWallet(database.db, clock, 'test', configFor({ WALLET_KEYSTORE: path.join(dir, 'y.json') }), {
        mnemonic: 'abandon '.repeat(12),
      }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('CLI: init and wallet show', () => {
  it('prints the mnemonic once, restores from --mnemonic-file, and shows the wallet without a passphrase', async () => {
    const dir = tempDir();
    const env = {
      DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'p.db'))).url,
      WALLET_KEYSTORE: path.join(dir, 'ks.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      TRON_NETWORK: 'devnet',
    };
    const mnemonicFile = path.join(dir, 'mnemonic.txt');
    writeFileSync(mnemonicFile, `${TEST_MNEMONIC}\n`);
    const init = await runCli(['init', '--mnemonic-file', mnemonicFile, '--json'], env);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.json).toMatchObject({ restored: true, mnemonic: null, hot_address: expect.stringMatching(/^T/) });
    const again = await runCli(['init', '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json.error.code).toBe('invalid_state');
    const show = await runCli(['wallet', 'show', '--json'], { ...env, WALLET_PASSPHRASE: '' });
    expect(show.code).toBe(0);
    expect(show.json).toMatchObject({
      hot_address: init.json.hot_address,
      hot_path: "m/44'/195'/1'/0/0",
      deposit_xpub: init.json.deposit_xpub,
      deposit_path: "m/44'/195'/0'/0",
      deposit_addresses_in_use: 0,
      next_index: 0,
      payouts_waiting: [],
    });
    // No node runs here: the hot wallet's balances are missing with the reason, the rest is shown.
    expect(show.json.hot_wallet).toBeNull();
    expect(show.json.hot_wallet_error).toEqual(expect.any(String));
    expect(show.json.in_deposit_addresses).toContainEqual({ asset: 'USDT_TRON', amount: '0' });
    const fresh = await runCli(['init'], {
      ...env,
      WALLET_KEYSTORE: path.join(dir, 'new.json'),
      DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'new.db'))).url,
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    const words = fresh.stdout.split('\n').find((l) => l.trim().split(/\s+/).length === 24);
    expect(words).toBeDefined();
  });
});

describe('keystore parameters from the file', () => {
  it('refuses to unlock a keystore that demands excessive scrypt work', async () => {
    const file = await encryptMnemonic(
      TEST_MNEMONIC,
      'a long enough passphrase',
      '2026-01-01T00:00:00.000Z',
      CHEAP_SCRYPT,
    );
    const greedy = { ...file, kdf: { ...file.kdf, N: 2 ** 24 } };
    await expect(decryptKeystore(greedy, 'a long enough passphrase')).rejects.toMatchObject({ code: 'invalid_state' });
    await expect(decryptKeystore(file, 'a long enough passphrase')).resolves.toMatchObject({ mnemonic: TEST_MNEMONIC });
  });
});
