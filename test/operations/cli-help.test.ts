/**
 * CLI quality: `paygate --help` lists every topic and single command; every command has a
 * description, static examples that name it, and --json.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { runBuilt, runCli } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMMANDS = path.join(ROOT, 'commands');
const topics = readdirSync(COMMANDS).filter((f) => statSync(path.join(COMMANDS, f)).isDirectory());
const singles = readdirSync(COMMANDS)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''));

/** Every command file as its id: `backup`, `merchant create`, `devnet` (a topic's index.ts). */
function commandFiles(): Array<{ id: string; file: string }> {
  const out = singles.map((id) => ({ id, file: path.join(COMMANDS, `${id}.ts`) }));
  for (const topic of topics) {
    for (const f of readdirSync(path.join(COMMANDS, topic)).filter((x) => x.endsWith('.ts'))) {
      out.push({
        id: f === 'index.ts' ? topic : `${topic} ${f.replace(/\.ts$/, '')}`,
        file: path.join(COMMANDS, topic, f),
      });
    }
  }
  return out;
}

describe('paygate --help', () => {
  it('lists every topic and every single command, backup and restore included', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    const [topicSection, commandSection] = r.stdout.split(/^COMMANDS$/m);
    for (const topic of topics) expect(topicSection, topic).toMatch(new RegExp(`^  ${topic} `, 'm'));
    for (const name of singles) expect(commandSection, name).toMatch(new RegExp(`^  ${name}$`, 'm'));
    expect(singles).toEqual(expect.arrayContaining(['backup', 'restore', 'serve', 'migrate', 'init']));
  });

  it('has a description in package.json for every topic folder', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      oclif: { topics: Record<string, { description: string }> };
    };
    for (const topic of topics) expect(pkg.oclif.topics[topic]?.description, topic).toBeTruthy();
  });

  it('gives every command a description, static examples that name it, and --json', async () => {
    const files = commandFiles();
    expect(files.length).toBeGreaterThan(30);
    for (const { id, file } of files) {
      const cmd = (await import(pathToFileURL(file).href)).default as {
        description?: string;
        examples?: string[];
        enableJsonFlag?: boolean;
      };
      expect(cmd.description, id).toMatch(/\S{3,}/);
      expect(cmd.examples?.length, `${id}: examples`).toBeGreaterThan(0);
      for (const example of cmd.examples ?? []) expect(example, id).toContain(`<%= config.bin %> ${id}`);
      expect(cmd.enableJsonFlag, `${id}: --json`).toBe(true);
    }
  });
});

describe('the help a user copies from', () => {
  it('examples name whole ids, never a shortened one (…)', async () => {
    for (const { id, file } of commandFiles()) {
      const cmd = (await import(pathToFileURL(file).href)).default as { examples?: string[] };
      for (const example of cmd.examples ?? []) expect(example, id).not.toContain('…');
    }
  });

  it("serve's second-process example starts beside a first one with the defaults: no port in common", async () => {
    const serve = (await import(pathToFileURL(path.join(COMMANDS, 'serve.ts')).href)).default as { examples: string[] };
    const second = serve.examples.find((e) => e.includes('a second process')) as string;
    const env = Object.fromEntries([...second.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    const ports = (c: ReturnType<typeof parseConfig>) => [c.port, c.adminPort, c.cabinetPort, c.payPort];
    const first = ports(parseConfig({}));
    for (const port of ports(parseConfig(env))) expect(first).not.toContain(port);
  });

  it('names a missing required flag with its dashes', async () => {
    const r = await runBuilt(['merchant', 'create', '--json'], { cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.json.error).toEqual({ code: 'invalid_argument', message: 'Missing required flag --name' });
  });
});
