/**
 * An invalid value stops start-up with a message naming the variable; TRUST_PROXY
 * never means "trust everyone", however it is spelled.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

function refusal(env: Record<string, string>): ConfigError | undefined {
  try {
    parseConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  return undefined;
}

describe('TRUST_PROXY', () => {
  it.each(['0.0.0.0/0', '::/0', '10.0.0.0/8, 0.0.0.0/0', '::ffff:0.0.0.0/0'])(
    'refuses %s: a range holding every address lets any client pick its IP with X-Forwarded-For',
    (value) => {
      const e = refusal({ TRUST_PROXY: value });
      expect(e?.variable).toBe('TRUST_PROXY');
      expect(e?.message).toMatch(/TRUST_PROXY: .*every/);
    },
  );

  it.each(['10.0.0.300', '1.2.3.4/99', '::1/129', '10.0.0.0/', '1.2.3', ':::1'])(
    'refuses the malformed %s naming the variable',
    (value) => {
      expect(refusal({ TRUST_PROXY: value })?.variable).toBe('TRUST_PROXY');
    },
  );

  // proxy-addr reads any spelling of an IPv4-mapped address as IPv4: each of these is 0.0.0.0/0.
  it.each(['0:0:0:0:0:ffff:0:0/96', '::0:ffff:0:0/96', '0::ffff:0.0.0.0/96', '0:0:0:0:0:FFFF:0:0/96'])(
    'refuses %s: every IPv4 address, spelled without a leading "::ffff:"',
    (value) => {
      const e = refusal({ TRUST_PROXY: value });
      expect(e?.variable).toBe('TRUST_PROXY');
      expect(e?.message).toMatch(/TRUST_PROXY: .*every/);
    },
  );

  it('still accepts proxy addresses and ranges', () => {
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.10, fd00::/8, ::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      'fd00::/8',
      '::1',
    ]);
  });
});

describe('HOST', () => {
  it.each(['http://0.0.0.0', '0.0.0.0:8080', 'local host', 'example.com/v1'])(
    'refuses %s naming the variable, as ADMIN_HOST does',
    (value) => {
      expect(refusal({ HOST: value })?.variable).toBe('HOST');
    },
  );

  it('accepts addresses and host names', () => {
    for (const host of ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'api.internal'])
      expect(parseConfig({ HOST: host }).host).toBe(host);
  });
});
