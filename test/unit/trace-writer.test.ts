import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Redactor, REDACTED } from '../../src/common/redact';
import { TraceWriter } from '../../src/trace/trace-writer';
import { Tracer } from '../../src/trace/tracer';
import { PLACEHOLDER_MANIFEST, tempDir } from '../helpers';

const meta = { trace_id: '0'.repeat(32), mode: 'full' as const, started_at: '2026-11-30T00:00:00.000Z', question: 'q', manifest: PLACEHOLDER_MANIFEST, release: { status: 'SUCCESS', reason: null }, stop_reason: null, counts: {}, tokens: { prompt: 0, completion: 0, embedding: 0 } };

function spans(tracer: Tracer, n: number): void {
  const root = tracer.start('request', 'request', null);
  for (let i = 0; i < n; i++) tracer.start('turn', `turn ${i}`, root, { turn: i }).end();
  root.end();
}

describe('trace writer', () => {
  it('writes finished spans (children first) and the meta; a whole trace is not partial', async () => {
    const dir = path.join(tempDir(), 'r1');
    const w = new TraceWriter('r1', dir, new Redactor());
    spans(new Tracer('metadata', w), 3);
    const o = await w.close(meta);
    assert.deepEqual([o.partial, o.records_written, o.records_dropped], [false, 4, 0]);
    const lines = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { name: string });
    assert.deepEqual(lines.map((l) => l.name), ['turn 0', 'turn 1', 'turn 2', 'request']);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8')).partial, false);
  });

  it('close leaves no timer behind: a CLI command that traced its run exits as soon as it is done', async () => {
    // The close deadline was a sleep raced and never cancelled: every traced `docqa ask` lingered 2 s.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const w = new TraceWriter('r1b', path.join(tempDir(), 'r1b'), new Redactor());
    spans(new Tracer('metadata', w), 2);
    assert.equal((await w.close(meta)).partial, false);
    assert.equal(timers(), before);
  });

  it('a full device (/dev/full): the trace is marked partial with the error and a count of what was lost', async () => {
    const dir = path.join(tempDir(), 'r2');
    fs.mkdirSync(dir);
    fs.symlinkSync('/dev/full', path.join(dir, 'records.jsonl'));
    const w = new TraceWriter('r2', dir, new Redactor());
    spans(new Tracer('metadata', w), 5);
    const o = await w.close(meta);
    assert.equal(o.partial, true);
    assert.match(o.writer_error!, /ENOSPC|no space/i);
    assert.equal(o.records_written + o.records_dropped, 6);
    assert.ok(o.records_dropped > 0);
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8')) as { partial: boolean; records_dropped: number };
    assert.deepEqual([written.partial, written.records_dropped], [true, o.records_dropped]);
  });

  it('a slow writer is abandoned at close and a full queue drops with a count; write() never waits', async () => {
    const dir = path.join(tempDir(), 'r3');
    let appends = 0;
    const w = new TraceWriter('r3', dir, new Redactor(), {
      maxQueueRecords: 3,
      closeTimeoutMs: 50,
      append: async () => {
        appends++;
        await sleep(10_000);
      },
    });
    const tracer = new Tracer('metadata', w);
    // The first record starts a (stuck) append; the queue then holds 3; the rest are dropped.
    spans(tracer, 9);
    const o = await w.close(meta);
    assert.equal(appends, 1);
    assert.equal(o.partial, true);
    assert.match(o.writer_error!, /did not finish within 50 ms/);
    assert.equal(o.records_written, 0);
    assert.equal(o.records_dropped, 10, 'the queued, the dropped and the batch stuck in flight are all counted as lost');
  });

  it('every line passes the redactor: known keys and key-shaped strings are replaced', async () => {
    const dir = path.join(tempDir(), 'r4');
    const w = new TraceWriter('r4', dir, new Redactor(['my-secret-embedding-key']));
    const tracer = new Tracer('full', w);
    const s = tracer.start('llm_call', 'llm_call', null, { error: 'HTTP 401: Incorrect API key provided: sk-abcdefghijklmnop' });
    s.artifact('prompt', 'Authorization: Bearer abc.def-ghi and my-secret-embedding-key and {"api_key": "zzz123"}');
    s.end('error');
    await w.close({ ...meta, question: 'is my-secret-embedding-key safe?' });
    const text = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8') + fs.readFileSync(path.join(dir, 'trace.json'), 'utf8');
    for (const leaked of ['sk-abcdefghijklmnop', 'abc.def-ghi', 'my-secret-embedding-key', 'zzz123']) assert.ok(!text.includes(leaked), leaked);
    assert.ok(text.includes(REDACTED));
    // The records are still valid JSON after redaction.
    for (const line of fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8').trim().split('\n')) JSON.parse(line);
  });
});

describe('Redactor', () => {
  it('replaces secrets longest first and leaves ordinary text alone', () => {
    const r = new Redactor(['abcd', 'abcdef', '', 'x', undefined]);
    assert.equal(r.redact('key abcdef, prefix abcd'), `key ${REDACTED}, prefix ${REDACTED}`);
    assert.equal(r.redact('To clarify: the skeleton has 206 bones; ask-me-anything'), 'To clarify: the skeleton has 206 bones; ask-me-anything');
    assert.equal(r.redact('authorization: Basic Zm9vOmJhcg=='), `authorization: ${REDACTED}`);
    // A value stored under an api-key name is a key, whatever it looks like.
    assert.deepEqual(r.redactValue({ a: ['abcdef'], 'x-api-key': 'q' }), { a: [REDACTED], 'x-api-key': REDACTED });
  });
});
