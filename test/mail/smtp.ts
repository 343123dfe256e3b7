/**
 * A real SMTP server in this process (the smtp-server package) on loopback: it takes every mail,
 * keeps each as received, and decodes what a reader sees (subject, plain text, HTML). It can be
 * stopped and started again on the same port, as a mail server that goes down and comes back.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  to(address: string): ReceivedMail[];
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Quoted-printable or base64 body bytes as UTF-8 text. */
function decodeBody(body: string, encoding: string): string {
  const e = encoding.toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < soft.length; i++) {
      if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
        bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(...Buffer.from(soft[i] as string, 'utf8'));
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return body;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), folded or not. */
function decodeHeader(v: string): string {
  return v
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

function split(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, at).replace(/\r?\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { headers, body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

/** The text/plain and text/html parts of a message, decoded (nested multiparts included). */
function parts(raw: string, found: { text: string; html: string }): void {
  const { headers, body } = split(raw);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      parts(part.replace(/^\r?\n/, ''), found);
    }
    return;
  }
  const decoded = decodeBody(body, headers['content-transfer-encoding'] ?? '7bit');
  if (type.toLowerCase().startsWith('text/html')) found.html = decoded;
  else found.text = decoded;
}

export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const found = { text: '', html: '' };
  parts(raw, found);
  return { from, to, subject: decodeHeader(split(raw).headers.subject ?? ''), ...found };
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  let port = 0;
  let server: SMTPServer;
  const start = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push(
            parseMail(
              Buffer.concat(chunks).toString('utf8'),
              from,
              session.envelope.rcptTo.map((r) => r.address),
            ),
          );
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  await start();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (address) => received.filter((m) => m.to.includes(address)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    start,
  };
}
