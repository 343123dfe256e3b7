/**
 * Reading the node's answers (src/chain/http-body.ts) from raw sockets on loopback: whole answers
 * with and without Content-Length, and the ways a node can fail mid-answer, each an error and
 * never a short or padded body handed on as if whole.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerTimeout, postForAnswer } from '../../src/chain/http-body.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers every request with `respond(socket)`, after reading the request head. */
async function rawNode(respond: (socket: net.Socket) => void): Promise<string> {
  const server = net.createServer((socket) => {
    socket.once('data', () => respond(socket));
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/wallet/x`;
}

const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');

describe('reading a node answer', () => {
  it('reads a whole answer with Content-Length, and a chunked one', async () => {
    const sized = await rawNode((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok":true}'));
    expect(text((await postForAnswer(sized, {}, '{}', 2000)).bytes)).toBe('{"ok":true}');
    const chunked = await rawNode((s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n'));
    const answer = await postForAnswer(chunked, {}, '{}', 2000);
    expect([answer.status, text(answer.bytes)]).toEqual([200, '{"a":1}']);
  });

  it('reads a compressed answer, and refuses a bomb past the limit or an unknown encoding', async () => {
    const body = JSON.stringify({ block: Array.from({ length: 50 }, (_, i) => ({ number: i })) });
    const gz = zlib.gzipSync(body);
    const gzipped = await rawNode((s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`), gz])));
    expect(text((await postForAnswer(gzipped, {}, '{}', 2000)).bytes)).toBe(body);
    const bomb = zlib.gzipSync(Buffer.alloc(100_000, 0x20));
    const bombing = await rawNode((s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`), bomb])));
    await expect(postForAnswer(bombing, {}, '{}', 2000, 10_000)).rejects.toThrow(/over the 10000-byte limit/);
    const odd = await rawNode((s) => s.end('HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\nContent-Length: 2\r\n\r\n{}'));
    await expect(postForAnswer(odd, {}, '{}', 2000)).rejects.toThrow(/unknown encoding: zstd/);
  });

  it('refuses an answer cut short of its Content-Length', async () => {
    const url = await rawNode((s) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"blocks":[');
      setTimeout(() => s.destroy(), 20);
    });
    await expect(postForAnswer(url, {}, '{}', 2000)).rejects.toThrow(/answer cut short/);
  });

  it('refuses a connection closed before any answer, and times out a node that never finishes', async () => {
    const closed = await rawNode((s) => s.destroy());
    await expect(postForAnswer(closed, {}, '{}', 2000)).rejects.toThrow(/no answer: other side closed/);
    const hanging = await rawNode((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"blo'));
    await expect(postForAnswer(hanging, {}, '{}', 300)).rejects.toBeInstanceOf(AnswerTimeout);
  });

  it('sends the credentials of a node URL as Basic authorization, and reuses a connection after a whole answer', async () => {
    const heads: string[] = [];
    const ports: number[] = [];
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      let request = '';
      socket.on('data', (d) => {
        // One answer per whole request (its head and its body `{}` may come in separate reads).
        request += d.toString('latin1');
        if (!request.includes('\r\n\r\n') || !request.endsWith('{}')) return;
        heads.push(request);
        ports.push(socket.remotePort!);
        request = '';
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
      });
      socket.on('error', () => {});
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://us%40er:p%3Ass@127.0.0.1:${(server.address() as net.AddressInfo).port}/wallet/x`;
    await postForAnswer(url, {}, '{}', 2000);
    // A turn later the connection is free again (undici frees it right after the answer's end).
    await new Promise((r) => setImmediate(r));
    await postForAnswer(url, {}, '{}', 2000);
    expect(heads[0]).toMatch(new RegExp(`authorization: Basic ${Buffer.from('us@er:p:ss').toString('base64')}\r\n`, 'i'));
    expect(ports[1]).toBe(ports[0]);
    for (const socket of sockets) socket.destroy(); // the client keeps it open, idle, for seconds
  });

  it('refuses an answer over the size limit, declared or streamed', async () => {
    const declared = await rawNode((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'));
    await expect(postForAnswer(declared, {}, '{}', 2000, 1000)).rejects.toThrow(/over the 1000-byte limit/);
    const streamed = await rawNode((s) => s.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n${'x'.repeat(2000)}\r\n0\r\n\r\n`));
    await expect(postForAnswer(streamed, {}, '{}', 2000, 1000)).rejects.toThrow(/over the 1000-byte limit/);
  });
});
