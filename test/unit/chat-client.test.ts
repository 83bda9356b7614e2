import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatClient, ChatRequestError } from '../../src/shared/chat-client';
import type { ChatEvent, ChatWebviewToHost } from '../../src/shared/chat-protocol';

function setup(timeoutScale = 1) {
  const posted: ChatWebviewToHost[] = [];
  const events: ChatEvent[] = [];
  const client = new ChatClient({ post: (m) => posted.push(m), onEvent: (e) => events.push(e), timeoutScale });
  const lastId = () => (posted.filter((m) => m.type === 'request').at(-1) as { id: string }).id;
  return { client, posted, events, lastId };
}
const code = (c: string) => (e: unknown) => e instanceof ChatRequestError && e.code === c;

describe('chat client (webview side)', () => {
  it('matches replies to requests by id and validates the value', async () => {
    const { client, lastId } = setup();
    const a = client.request('ask', { conversation_id: null, question: 'q' });
    const idA = lastId();
    const b = client.request('stop', { turn_id: 't' });
    client.receive({ type: 'reply', id: lastId(), ok: true, value: { stopped: true } });
    client.receive({ type: 'reply', id: idA, ok: true, value: { conversation_id: 'c', turn_id: 't' } });
    assert.deepEqual(await b, { stopped: true });
    assert.deepEqual(await a, { conversation_id: 'c', turn_id: 't' });
    const bad = client.request('ask', { conversation_id: null, question: 'q' });
    client.receive({ type: 'reply', id: lastId(), ok: true, value: { conversation_id: 7 } });
    await assert.rejects(bad, code('invalid_reply'));
    assert.equal(client.pendingCount, 0);
  });

  it('drops a message whose type is an object without toString with a log line, instead of throwing (found by fuzzing)', () => {
    const { client, posted } = setup();
    assert.doesNotThrow(() => client.receive(JSON.parse('{"type": {"toString": null}, "id": "r1", "ok": false}')));
    const log = posted.at(-1) as { type: string; level: string; message: string };
    assert.deepEqual([log.type, log.level], ['log', 'warn']);
    assert.match(log.message, /^dropped an invalid message from the host: type \(an object\)/);
  });

  it('passes the host’s error code through', async () => {
    const { client, lastId } = setup();
    const p = client.request('open_conversation', { id: 'gone' });
    client.receive({ type: 'reply', id: lastId(), ok: false, error: { code: 'not_found', message: 'no such conversation' } });
    await assert.rejects(p, code('not_found'));
  });

  it('times out, posts cancel, and ignores the late reply', async () => {
    const { client, posted, lastId } = setup(0.001); // stop's 10 s become 10 ms
    const p = client.request('stop', { turn_id: 't' });
    const id = lastId();
    await assert.rejects(p, code('timeout'));
    assert.deepEqual(posted.at(-1), { type: 'cancel', id });
    client.receive({ type: 'reply', id, ok: true, value: { stopped: true } });
    assert.equal(posted.at(-1)?.type, 'log', 'the late reply is logged, not delivered');
  });

  it('is cancelled by an AbortSignal', async () => {
    const { client, posted } = setup();
    const ac = new AbortController();
    const p = client.request('test_connection', {}, ac.signal);
    ac.abort();
    await assert.rejects(p, code('cancelled'));
    assert.equal(posted.at(-1)?.type, 'cancel');
    await assert.rejects(client.request('test_connection', {}, ac.signal), code('cancelled'));
  });

  it('rejects pending requests on dispose, and every request after it', async () => {
    const { client } = setup();
    const p = client.request('list_conversations', {});
    client.dispose();
    await assert.rejects(p, code('disposed'));
    await assert.rejects(client.request('list_conversations', {}), code('disposed'));
  });

  it('drops an invalid message and reports it to the host as log, never as an event', () => {
    const { client, posted, events } = setup();
    client.receive({ type: 'init', ui_lang: 'fr' });
    client.receive('<script>');
    client.receive({ type: 'ask_event', conversation_id: 'c', turn_id: 't', event: { type: 'model_delta', turn: 'x' } });
    assert.equal(events.length, 0);
    const logs = posted.filter((m) => m.type === 'log');
    assert.equal(logs.length, 3);
    assert.match(logs[0]!.type === 'log' ? logs[0]!.message : '', /dropped an invalid message from the host: type "init"/);
    client.receive({ type: 'ui_lang', ui_lang: 'zh' });
    assert.deepEqual(events, [{ type: 'ui_lang', ui_lang: 'zh' }]);
  });
});
