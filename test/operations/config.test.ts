/** ADMIN_HOST and ADMIN_PORT: the admin listener's address, validated like every variable. */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('admin listener configuration', () => {
  it('defaults to 127.0.0.1:9090', () => {
    expect(parseConfig({})).toMatchObject({ adminHost: '127.0.0.1', adminPort: 9090 });
  });

  it('takes an address or host name and a port', () => {
    expect(parseConfig({ ADMIN_HOST: '10.0.0.5', ADMIN_PORT: '9191' })).toMatchObject({
      adminHost: '10.0.0.5',
      adminPort: 9191,
    });
    expect(parseConfig({ ADMIN_HOST: '::1' }).adminHost).toBe('::1');
    expect(parseConfig({ ADMIN_HOST: 'metrics.internal' }).adminHost).toBe('metrics.internal');
    expect(parseConfig({ ADMIN_PORT: '0', PORT: '0' }).adminPort).toBe(0);
  });

  it('refuses a malformed host, a port out of range, or the public port, naming the variable', () => {
    const refused = (env: Record<string, string>) => {
      try {
        parseConfig(env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refused({ ADMIN_HOST: 'http://127.0.0.1' })).toMatch(/^ADMIN_HOST: must be an IP address or a host name/);
    expect(refused({ ADMIN_HOST: '127.0.0.1:9090' })).toMatch(/^ADMIN_HOST:/);
    expect(refused({ ADMIN_PORT: '70000' })).toMatch(/^ADMIN_PORT: must be between 0 and 65535/);
    expect(refused({ ADMIN_PORT: 'abc' })).toMatch(/^ADMIN_PORT: must be a whole number/);
    expect(refused({ ADMIN_PORT: '8080' })).toMatch(/^ADMIN_PORT: must differ from PORT \(8080\)/);
    expect(refused({ PORT: '9000', ADMIN_PORT: '9000' })).toMatch(/^ADMIN_PORT:/);
  });
});
