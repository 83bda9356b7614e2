import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHAT_METHODS, ChatHostToWebview, ChatWebviewToHost, replyOk } from '../../src/shared/chat-protocol';
import { conversation, doneTurn, successEvents } from '../fakes/chat-fixtures';

describe('chat protocol', () => {
  it('accepts every event of a real run and a stored conversation', () => {
    for (const event of successEvents()) assert.ok(ChatHostToWebview.safeParse({ type: 'ask_event', conversation_id: 'c1', turn_id: 't1', event }).success, event.type);
    const init = { type: 'init', ui_lang: 'zh', conversation: conversation('c1', [doneTurn('t1', 'What is osmosis?')]), conversations: [], knowledge_base: { snapshot_id: 's', state: 'ready', documents: 3, failed: [] } };
    assert.ok(ChatHostToWebview.safeParse(init).success);
  });

  it('checks a request’s params against its method', () => {
    assert.ok(ChatWebviewToHost.safeParse({ type: 'request', id: 'r1', method: 'ask', params: { conversation_id: null, question: 'q' } }).success);
    assert.ok(!ChatWebviewToHost.safeParse({ type: 'request', id: 'r1', method: 'ask', params: { question: 'q' } }).success, 'conversation_id is required (null for a new one)');
    assert.ok(!ChatWebviewToHost.safeParse({ type: 'request', id: 'r1', method: 'open_trace', params: { conversation_id: null, question: 'q' } }).success);
    assert.ok(!ChatWebviewToHost.safeParse({ type: 'request', id: 'r1', method: 'rm_rf', params: {} }).success, 'unknown methods are refused');
    assert.ok(CHAT_METHODS.includes('block_preview'));
  });

  it('lets only http(s) links through open_link', () => {
    const link = (url: string) => ChatWebviewToHost.safeParse({ type: 'request', id: 'r', method: 'open_link', params: { url } }).success;
    assert.ok(link('https://example.com/a?b=1'));
    assert.ok(link('http://example.com'));
    for (const bad of ['command:workbench.action.terminal.new', 'vscode://file/etc/passwd', 'javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<script>', 'file:///etc/passwd', 'https://', ' https://x.y']) assert.ok(!link(bad), bad);
  });

  it('a host reply value is checked against the method before it is posted', () => {
    assert.deepEqual(replyOk('ask', 'r1', { conversation_id: 'c', turn_id: 't' }), { type: 'reply', id: 'r1', ok: true, value: { conversation_id: 'c', turn_id: 't' } });
    assert.throws(() => replyOk('ask', 'r1', { conversation_id: 'c' } as never));
  });
});
