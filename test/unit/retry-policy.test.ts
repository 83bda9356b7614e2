import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RETRY_POLICY, MAX_ATTEMPTS, decideRetry, retryAfterMs, sleep } from '../../src/common/retry-policy';

const headers = (h: Record<string, string>) => new Headers(h);
const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('the retry policy', () => {
  it('retries a transient failure once, after the policy’s pause or the service’s Retry-After; never a final one', () => {
    assert.equal(MAX_ATTEMPTS, 2);
    assert.deepEqual(decideRetry(true, 1, null), { kind: 'retry', delay_ms: DEFAULT_RETRY_POLICY.retry_delay_ms });
    assert.deepEqual(decideRetry(true, 1, 1000), { kind: 'retry', delay_ms: 1000 });
    assert.deepEqual(decideRetry(true, 1, 0), { kind: 'retry', delay_ms: 0 });
    assert.deepEqual(decideRetry(true, 2, null), { kind: 'give_up', why: 'attempts_spent' });
    assert.deepEqual(decideRetry(false, 1, 1000), { kind: 'give_up', why: 'final' });
  });

  it('gives up at once on a Retry-After beyond its limit instead of hanging', () => {
    assert.deepEqual(decideRetry(true, 1, 30_000), { kind: 'retry', delay_ms: 30_000 });
    assert.deepEqual(decideRetry(true, 1, 30_001), { kind: 'give_up', why: 'retry_after_too_long' });
    assert.deepEqual(decideRetry(true, 1, 5000, { retry_delay_ms: 10, max_retry_after_ms: 2000 }), { kind: 'give_up', why: 'retry_after_too_long' });
  });

  it('reads Retry-After in seconds, as an HTTP-date (a past one is now), and OpenAI’s retry-after-ms; ignores garbage', () => {
    assert.equal(retryAfterMs(headers({ 'retry-after': '2' }), NOW), 2000);
    assert.equal(retryAfterMs(headers({ 'retry-after': '1.5' }), NOW), 1500);
    assert.equal(retryAfterMs(headers({ 'retry-after': new Date(NOW + 120_000).toUTCString() }), NOW), 120_000);
    assert.equal(retryAfterMs(headers({ 'retry-after': new Date(NOW - 5000).toUTCString() }), NOW), 0);
    assert.equal(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW), 250);
    assert.equal(retryAfterMs(headers({ 'retry-after': 'soon' }), NOW), null);
    assert.equal(retryAfterMs(headers({ 'retry-after': '-3' }), NOW), null);
    assert.equal(retryAfterMs(headers({}), NOW), null);
    assert.equal(retryAfterMs(undefined, NOW), null);
  });

  it('sleeps until cancelled, rejecting with the signal’s reason', async () => {
    await sleep(1);
    const ac = new AbortController();
    const p = sleep(60_000, ac.signal);
    ac.abort(new Error('stopped'));
    await assert.rejects(p, /stopped/);
    await assert.rejects(sleep(10, AbortSignal.abort(new Error('already'))), /already/);
  });
});
