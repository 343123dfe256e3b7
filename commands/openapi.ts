import { Flags } from '@oclif/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PaygateCommand } from '../src/cli/base.js';
import {
  buildAdminOpenApiDocument,
  buildCabinetOpenApiDocument,
  buildOpenApiDocument,
  buildPayOpenApiDocument,
} from '../src/http/openapi-doc.js';
import { renderApiMarkdown } from '../src/http/openapi-markdown.js';

export default class OpenApi extends PaygateCommand {
  static override description =
    'Print the OpenAPI 3.1 document of /v1 (the one GET /v1/openapi.json serves) or, with --admin, of the operator console /admin/v1 (GET /admin/v1/openapi.json), with --cabinet of the merchant cabinet /cabinet/v1, with --pay of the payment page API /pay/v1, or its Markdown reference; needs no database or wallet';
  static override examples = [
    '<%= config.bin %> openapi > openapi.json',
    '<%= config.bin %> openapi --output dist/openapi.json',
    '<%= config.bin %> openapi --markdown --output docs/api.md',
    '<%= config.bin %> openapi --admin --markdown --output docs/admin-api.md',
    '<%= config.bin %> openapi --cabinet --markdown --output docs/cabinet-api.md',
    '<%= config.bin %> openapi --pay --markdown --output docs/pay-api.md',
  ];
  static override flags = {
    admin: Flags.boolean({ description: 'the operator console /admin/v1 instead of /v1' }),
    markdown: Flags.boolean({ description: 'the Markdown reference (docs/api.md) instead of the JSON document' }),
    output: Flags.string({ char: 'o', description: 'write to this file instead of stdout' }),
    cabinet: Flags.boolean({
      description: 'the merchant cabinet /cabinet/v1 instead of /v1',
      exclusive: ['admin'],
    }),
    pay: Flags.boolean({
      description: "the payment page's API /pay/v1 instead of /v1",
      exclusive: ['admin', 'cabinet'],
    }),
  };

  async run(): Promise<{ output: string | null; bytes: number } | Record<string, unknown>> {
    const { flags } = await this.parse(OpenApi);
    const doc = flags.admin
      ? await buildAdminOpenApiDocument()
      : flags.cabinet
        ? await buildCabinetOpenApiDocument()
        : flags.pay
          ? await buildPayOpenApiDocument()
          : await buildOpenApiDocument();
    const text = flags.markdown ? renderApiMarkdown(doc) : `${JSON.stringify(doc, null, 2)}\n`;
    if (flags.output) {
      mkdirSync(path.dirname(path.resolve(flags.output)), { recursive: true });
      writeFileSync(flags.output, text);
      this.say(`wrote ${flags.output} (${Buffer.byteLength(text)} bytes)`);
      return { output: flags.output, bytes: Buffer.byteLength(text) };
    }
    // Without --output the document itself is the output (with --json: the JSON document).
    if (!this.jsonEnabled()) process.stdout.write(text);
    return flags.markdown ? { output: null, bytes: Buffer.byteLength(text) } : doc;
  }
}
