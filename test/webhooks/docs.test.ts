/** docs/webhooks.md documents every event type of the one list, with a body the API would send. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../src/webhooks/signing.js';
import { InvoiceSchema } from '../../src/invoices/schema.js';
import { PayoutSchema } from '../../src/payouts/schema.js';
import { EVENT_TYPES, resourceOf } from '../../src/webhooks/event-types.js';
import { StandaloneDepositSchema } from '../../src/webhooks/openapi.js';
import { exampleBody } from './examples.js';

const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');
const SCHEMA = { Invoice: InvoiceSchema, Payout: PayoutSchema, Deposit: StandaloneDepositSchema };

describe('docs/webhooks.md', () => {
  it.each(EVENT_TYPES)('shows an example body of %s that matches its schema', (type) => {
    const block = new RegExp(`### \`${type.replace('.', '\\.')}\`\\n\\n\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
    expect(block, type).not.toBeNull();
    const shown = JSON.parse(block![1]!);
    expect(shown).toEqual(JSON.parse(exampleBody(type)));
    expect(shown.type).toBe(type);
    // The object's fields are exactly the schema's, and its status is one the schema lists.
    const schema = SCHEMA[resourceOf(type)] as unknown as { properties: Record<string, { enum?: string[] }> };
    expect(Object.keys(shown.data).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(schema.properties.status!.enum).toContain(shown.data.status);
    expect(shown.data.status).toBe(type.split('.')[1]);
  });

  it('has no event heading that is not in the list', () => {
    const headings = [...doc.matchAll(/^### `([a-z_.]+)`$/gm)].map((m) => m[1]);
    expect(headings).toEqual([...EVENT_TYPES]);
  });
});

describe('the node:crypto verification snippet of docs/webhooks.md', () => {
  // Run as printed: written to a module file of its own and imported, as a merchant's code would.
  const code = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(doc)![1]!;
  let verify: (secret: string, headers: Record<string, string>, body: string) => unknown;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paygate-webhook-snippet-'));
    const file = path.join(dir, 'verify.mjs');
    writeFileSync(file, code);
    try {
      ({ verifyPaygateWebhook: verify } = await import(pathToFileURL(file).href));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const body = exampleBody('payout.confirmed');

  it('accepts what paygate signs, also with two signatures during a rotation', () => {
    expect(verify(secret, webhookHeaders([secret], 'evt_1', new Date(), body), body)).toEqual(JSON.parse(body));
    expect(verify(secret, webhookHeaders([other, secret], 'evt_1', new Date(), body), body)).toEqual(JSON.parse(body));
  });

  it('refuses a wrong secret, a changed body and an old timestamp', () => {
    expect(() => verify(secret, webhookHeaders([other], 'evt_1', new Date(), body), body)).toThrow(
      /no matching signature/,
    );
    expect(() =>
      verify(secret, webhookHeaders([secret], 'evt_1', new Date(), body), body.replace('100', '900')),
    ).toThrow(/no matching signature/);
    expect(() => verify(secret, webhookHeaders([secret], 'evt_1', new Date(Date.now() - 301_000), body), body)).toThrow(
      /replay window/,
    );
  });
});
