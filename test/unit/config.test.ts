import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, databaseLabel, parseConfig, redisLabel } from '../../src/config.js';
import { tempDir } from '../helpers/app.js';

describe('parseConfig', () => {
  it('has the documented defaults', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      rateLimitPerIp: 600,
      rateLimitPerKey: 300,
      adminRateLimitPerIp: 600,
      confirmations: 19,
      tronNetwork: 'mainnet',
      logLevel: 'info',
      trustProxy: false,
      walletPassphrase: null,
      workerLeaseTtlMs: 15_000,
      redisUrl: null,
      redisKeyPrefix: 'paygate:',
    });
    expect(c.databasePath).toBe(path.resolve('./paygate.db'));
  });

  it('reads every variable', () => {
    const c = parseConfig({
      DATABASE_URL: 'sqlite:/tmp/x.db',
      HOST: '0.0.0.0',
      PORT: '9000',
      PUBLIC_BASE_URL: 'https://pay.example/',
      TRON_NETWORK: 'nile',
      TRON_FULL_NODE_URL: 'https://nile.trongrid.io',
      TRON_API_KEY: 'abc',
      WALLET_KEYSTORE: '/tmp/ks.json',
      WALLET_PASSPHRASE: 'pass phrase',
      API_RATE_LIMIT_PER_IP: '10',
      API_RATE_LIMIT_PER_KEY: '5',
      ADMIN_RATE_LIMIT_PER_IP: '30',
      CONFIRMATIONS: '20',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '127.0.0.1,10.0.0.0/8',
    });
    expect(c).toMatchObject({
      databasePath: '/tmp/x.db',
      host: '0.0.0.0',
      port: 9000,
      publicBaseUrl: 'https://pay.example',
      tronNetwork: 'nile',
      tronFullNodeUrl: 'https://nile.trongrid.io',
      tronApiKey: 'abc',
      walletKeystore: '/tmp/ks.json',
      walletPassphrase: 'pass phrase',
      rateLimitPerIp: 10,
      rateLimitPerKey: 5,
      adminRateLimitPerIp: 30,
      confirmations: 20,
      logLevel: 'debug',
      trustProxy: ['127.0.0.1', '10.0.0.0/8'],
    });
  });

  it('reads a PostgreSQL URL and its pool size, and shows it without the password', () => {
    const c = parseConfig({
      DATABASE_URL: 'postgresql://pay:s3cret@db.internal:5433/paygate',
      DATABASE_POOL_SIZE: '4',
    });
    expect(c.database).toEqual({
      engine: 'postgres',
      url: 'postgresql://pay:s3cret@db.internal:5433/paygate',
      poolSize: 4,
    });
    expect(c.databasePath).toBeNull();
    expect(databaseLabel(c.database)).toBe('postgresql://pay:***@db.internal:5433/paygate');
    expect(parseConfig({ DATABASE_URL: 'postgres://db/paygate' }).database).toMatchObject({ poolSize: 10 });
    expect(() => parseConfig({ DATABASE_URL: 'postgres://db/paygate', DATABASE_POOL_SIZE: '0' })).toThrow(
      /DATABASE_POOL_SIZE/,
    );
  });

  it('reads the Redis of the rate limits, and shows it without the password', () => {
    const c = parseConfig({ REDIS_URL: 'rediss://:s3cret@cache.internal:6380/2', REDIS_KEY_PREFIX: 'pay-eu:' });
    expect(c).toMatchObject({ redisUrl: 'rediss://:s3cret@cache.internal:6380/2', redisKeyPrefix: 'pay-eu:' });
    expect(redisLabel(c.redisUrl as string)).toBe('rediss://:***@cache.internal:6380/2');
    expect(parseConfig({ REDIS_URL: 'redis://127.0.0.1' }).redisUrl).toBe('redis://127.0.0.1');
  });

  it('reads the mail server and sender together, and no mail without them', () => {
    expect(parseConfig({}).mail).toBeNull();
    expect(
      parseConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: 'Shop <billing@example.com>' }).mail,
    ).toEqual({
      smtpUrl: 'smtps://u:p@mail.example.com:465',
      from: 'Shop <billing@example.com>',
    });
    expect(parseConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'billing@example.com' }).mail?.from).toBe(
      'billing@example.com',
    );
  });

  it.each([
    [{ SMTP_URL: 'smtp://mail.example.com:587' }, 'MAIL_FROM'],
    [{ MAIL_FROM: 'billing@example.com' }, 'SMTP_URL'],
    [{ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'billing@example.com' }, 'SMTP_URL'],
    [{ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'billing' }, 'MAIL_FROM'],
  ])('refuses mail settings %j naming %s', (env, name) => {
    expect(() => parseConfig(env)).toThrow(expect.objectContaining({ variable: name }));
  });

  it('reads the passphrase from a file', () => {
    const f = path.join(tempDir(), 'pass');
    writeFileSync(f, 'secret words\n');
    expect(parseConfig({ WALLET_PASSPHRASE_FILE: f }).walletPassphrase).toBe('secret words');
  });

  it('reads the worker lease TTL as a duration', () => {
    expect(parseConfig({ WORKER_LEASE_TTL: '30s' }).workerLeaseTtlMs).toBe(30_000);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['TRON_NETWORK', 'shasta'],
    ['API_RATE_LIMIT_PER_IP', '0'],
    ['API_RATE_LIMIT_PER_KEY', '1.5'],
    ['ADMIN_RATE_LIMIT_PER_IP', '0'],
    ['CONFIRMATIONS', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['TRON_FULL_NODE_URL', 'not a url'],
    ['DATABASE_URL', 'postgres://db'],
    ['DATABASE_URL', 'postgresql://db:port/paygate'],
    ['DATABASE_URL', ':memory:'],
    ['WALLET_PASSPHRASE_FILE', '/nonexistent/pass'],
    ['TRUST_PROXY', 'maybe'],
    ['WORKER_LEASE_TTL', '1s'],
    ['WORKER_LEASE_TTL', 'soon'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', 'TRUE'],
    ['CABINET_TRUST_PROXY', 'true'],
    ['CABINET_TRUST_PROXY', '0.0.0.0/0'],
    ['PAY_TRUST_PROXY', 'true'],
    ['PAY_PORT', '8080'],
    ['PAY_PORT', '9091'],
    ['PAY_HOST', '0.0.0.0:8082'],
    ['PAY_PUBLIC_URL', 'checkout.example.com'],
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_URL', 'redis://'],
    ['REDIS_URL', 'redis://cache:6379/rate'],
    ['REDIS_KEY_PREFIX', 'pay gate'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    let err: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(name);
    expect((err as Error).message).toContain(name);
  });
});

describe('TRUST_PROXY', () => {
  it('accepts a hop count or proxy addresses, and says why "true" is refused', () => {
    expect(parseConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(parseConfig({ TRUST_PROXY: '::1, 10.0.0.0/8' }).trustProxy).toEqual(['::1', '10.0.0.0/8']);
    expect(() => parseConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: .*X-Forwarded-For.*hop count/);
  });

  it("is the public listener's only: the cabinet's is CABINET_TRUST_PROXY, not trusted unless set", () => {
    expect(parseConfig({ TRUST_PROXY: '1' }).cabinetTrustProxy).toBe(false);
    expect(parseConfig({ CABINET_TRUST_PROXY: '10.0.0.5' })).toMatchObject({
      trustProxy: false,
      cabinetTrustProxy: ['10.0.0.5'],
    });
  });
});

describe('the payment page listener', () => {
  it('is on loopback port 8082 by default, its links naming it, unless PAY_PUBLIC_URL says otherwise', async () => {
    const { payUrl } = await import('../../src/config.js');
    const c = parseConfig({});
    expect(c).toMatchObject({ payHost: '127.0.0.1', payPort: 8082, payPublicUrl: null, payTrustProxy: false });
    expect(payUrl(c)).toBe('http://127.0.0.1:8082');
    expect(payUrl(parseConfig({ PAY_PUBLIC_URL: 'https://checkout.example.com/' }))).toBe(
      'https://checkout.example.com',
    );
    expect(parseConfig({ PAY_TRUST_PROXY: '1' })).toMatchObject({ payTrustProxy: 1, trustProxy: false });
  });
});

describe('network defaults', () => {
  it('uses the shipped node of each network unless TRON_FULL_NODE_URL is set', async () => {
    const { fullNodeUrl } = await import('../../src/chain/networks.js');
    expect(fullNodeUrl(parseConfig({ TRON_NETWORK: 'mainnet' }))).toBe('https://api.trongrid.io');
    expect(fullNodeUrl(parseConfig({ TRON_NETWORK: 'nile' }))).toBe('https://nile.trongrid.io');
    expect(fullNodeUrl(parseConfig({ TRON_NETWORK: 'devnet' }))).toBe('http://127.0.0.1:8090');
    expect(fullNodeUrl(parseConfig({ TRON_NETWORK: 'devnet', TRON_FULL_NODE_URL: 'http://127.0.0.1:9999/' }))).toBe(
      'http://127.0.0.1:9999',
    );
  });
});

describe('CABINET_TOTP_KEY', () => {
  it('is read from the variable or the first line of its file, and refused shorter than 32 characters', () => {
    expect(parseConfig({}).cabinetTotpKey).toBeNull();
    const key = 'k'.repeat(32);
    expect(parseConfig({ CABINET_TOTP_KEY: key }).cabinetTotpKey).toBe(key);
    const file = path.join(tempDir(), 'totp-key');
    writeFileSync(file, `${key}\n`);
    expect(parseConfig({ CABINET_TOTP_KEY_FILE: file }).cabinetTotpKey).toBe(key);
    expect(() => parseConfig({ CABINET_TOTP_KEY: 'short' })).toThrow(ConfigError);
    expect(() => parseConfig({ CABINET_TOTP_KEY_FILE: `${file}-absent` })).toThrow(
      /CABINET_TOTP_KEY_FILE: cannot read/,
    );
  });
});
