import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { nobodyListening } from '../../src/trace/collector-listening';

describe('whether an OTLP collector can be there at all (before the exporter retries for seconds)', () => {
  it('says nothing against a server that listens, and names why for a closed port or a name that does not resolve', async () => {
    const server = http.createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      assert.equal(await nobodyListening(new URL(`http://127.0.0.1:${port}/v1/traces`), 2000), null);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(await nobodyListening(new URL(`http://127.0.0.1:${port}/v1/traces`), 2000), 'ECONNREFUSED');
    assert.match((await nobodyListening(new URL('http://collector.invalid:4318/v1/traces'), 2000)) ?? 'null', /^(ENOTFOUND|EAI_AGAIN)$/);
  });

  it('connects to an IPv6 address written in brackets, as URLs write it', async () => {
    const server = http.createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '::1', resolve));
    try {
      assert.equal(await nobodyListening(new URL(`http://[::1]:${(server.address() as AddressInfo).port}/v1/traces`), 2000), null);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
