/**
 * Reading the node's answers (src/chain/http.ts) from raw sockets on loopback: whole answers
 * chunked or compressed, and the ways a node can fail mid-answer, each an error (retried as
 * transient) and never a short or padded body read as if whole.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { TronNetworkError, TronTimeoutError } from '../../src/chain/errors.js';
import { NodeHttp } from '../../src/chain/http.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A node that answers every request with `respond(socket, request)` once the request is whole. */
async function rawNode(respond: (socket: net.Socket, request: string) => void): Promise<string> {
  const server = net.createServer((socket) => {
    let request = '';
    socket.on('data', (d) => {
      request += d.toString('latin1');
      if (request.includes('\r\n\r\n') && request.endsWith('{}')) respond(socket, request);
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const node = (fullHost: string, opts: { timeoutMs?: number; maxAnswerBytes?: number } = {}) =>
  new NodeHttp({ fullHost, retries: 0, timeoutMs: 2_000, ...opts });

describe('reading a node answer', () => {
  it('reads a chunked answer and a compressed one', async () => {
    const chunked = await rawNode((s) =>
      s.end(
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n',
      ),
    );
    expect(await node(chunked).post('/wallet/x', {})).toEqual({ a: 1 });
    const body = { block: Array.from({ length: 50 }, (_, i) => ({ number: i })) };
    const gz = zlib.gzipSync(JSON.stringify(body));
    const gzipped = await rawNode((s) =>
      s.end(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\nConnection: close\r\n\r\n`,
          ),
          gz,
        ]),
      ),
    );
    expect(await node(gzipped).post('/wallet/x', {})).toEqual(body);
  });

  it('refuses an answer over the size limit, declared, streamed or decompressed', async () => {
    const declared = await rawNode((s) =>
      s.end('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n'),
    );
    const streamed = await rawNode((s) =>
      s.end(
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n7d0\r\n${'x'.repeat(2000)}\r\n0\r\n\r\n`,
      ),
    );
    const bomb = zlib.gzipSync(Buffer.alloc(100_000, 0x20));
    const bombing = await rawNode((s) =>
      s.end(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\nConnection: close\r\n\r\n`,
          ),
          bomb,
        ]),
      ),
    );
    for (const url of [declared, streamed, bombing]) {
      const err = await node(url, { maxAnswerBytes: 1000 })
        .post('/wallet/x', {})
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TronNetworkError);
      expect((err as Error).message).toMatch(/over the 1000-byte limit/);
    }
  });

  it('fails an answer cut short of its Content-Length, a connection closed without one, and times out one that never ends', async () => {
    const cut = await rawNode((s) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"block":[]}');
      setTimeout(() => s.destroy(), 20);
    });
    await expect(node(cut).post('/wallet/x', {})).rejects.toMatchObject({ name: 'TronNetworkError', transient: true });
    const closed = await rawNode((s) => s.destroy());
    await expect(node(closed).post('/wallet/x', {})).rejects.toMatchObject({
      name: 'TronNetworkError',
      transient: true,
    });
    const hanging = await rawNode((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"blo'));
    await expect(node(hanging, { timeoutMs: 300 }).post('/wallet/x', {})).rejects.toBeInstanceOf(TronTimeoutError);
  });

  it('sends the credentials of a node URL as Basic authorization, not in the request', async () => {
    const requests: string[] = [];
    const url = await rawNode((s, request) => {
      requests.push(request);
      s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    });
    expect(await node(url.replace('http://', 'http://us%40er:p%3Ass@')).post('/wallet/x', {})).toEqual({});
    expect(requests[0]).toMatch(
      new RegExp(`authorization: Basic ${Buffer.from('us@er:p:ss').toString('base64')}\r\n`, 'i'),
    );
    expect(requests[0]).toMatch(/^POST \/wallet\/x HTTP\/1.1\r\n/);
  });
});
