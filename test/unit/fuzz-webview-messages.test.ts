import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { z } from 'zod';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, NULL_LOGGER, fixedKeys } from '../../src/app/settings';
import { ChatClient, ChatRequestError } from '../../src/shared/chat-client';
import { CHAT_METHODS, CHAT_REQUESTS, ChatHostToWebview, type ChatHostToWebview as HostMessage, ChatWebviewToHost } from '../../src/shared/chat-protocol';
import { PdfHostToView, PdfViewToHost } from '../../src/shared/pdf-protocol';
import { HostToTraceView, TraceViewToHost } from '../../src/shared/trace-protocol';
import { HostToWebview, WebviewToHost } from '../../src/shared/webview-protocol';
import { ChatSession } from '../../src/vscode/chat-session';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { assertPrototypesClean, hostileJson, mutatedJson, runs, trialsOf } from '../fuzz';

/**
 * Property tests of the webview messages (issue 24 item 6), both directions of the chat, trace, PDF and
 * inspect views: the schemas every side validates arrivals with never throw, accept only what
 * re-validates, and let no `__proto__` key pollute; the chat's two ends (the webview's ChatClient and
 * the host's ChatSession over a real app) drop an invalid message with a log line and answer every valid
 * request once.
 */
const SCHEMAS: Array<[string, z.ZodType, unknown[]]> = [
  ['chat webview → host', ChatWebviewToHost, [{ type: 'ready' }, { type: 'cancel', id: 'r1' }, { type: 'log', level: 'warn', message: 'm' }, { type: 'request', id: 'r2', method: 'ask', params: { conversation_id: null, question: 'q?' } }, { type: 'request', id: 'r3', method: 'open_link', params: { url: 'https://example.com/a' } }, { type: 'request', id: 'r4', method: 'block_preview', params: { doc_id: 'd', block_id: 'b' } }]],
  ['chat host → webview', ChatHostToWebview, [{ type: 'reply', id: 'r1', ok: true, value: { x: 1 } }, { type: 'reply', id: 'r1', ok: false, error: { code: 'c', message: 'm' } }, { type: 'ui_lang', ui_lang: 'zh' }, { type: 'turn_error', conversation_id: 'c', turn_id: 't', code: 'no_snapshot', message: 'm' }, { type: 'knowledge_base', knowledge_base: { snapshot_id: null, state: 'none', documents: 0, failed: [] } }, { type: 'conversations', conversations: [] }]],
  ['trace view → host', TraceViewToHost, [{ type: 'ready' }, { type: 'replay', id: 1 }, { type: 'show-prompt', turn: 2 }, { type: 'open-trace', run_id: 'r' }]],
  ['host → trace view', HostToTraceView, [{ type: 'request-failed', id: 1, code: 'c', message: 'm' }, { type: 'export-result', id: 2, spans: 3 }, { type: 'show-eval-diff', language: 'en', diff: { a: 'a', b: 'b', pass_rate: { a: 1, b: 0.5, delta: -0.5 }, cases: [{ id: 'x', a: 'pass', b: null, change: 'only_a' }], manifest_changes: [] } }]],
  ['PDF view → host', PdfViewToHost, [{ type: 'ready' }, { type: 'shown', page: 1, page_count: 3, match: 'exact' }, { type: 'failed', message: 'm' }]],
  ['host → PDF view', PdfHostToView, [{ type: 'goto', page: 2, highlight: 'text' }]],
  ['inspect view → host', WebviewToHost, [{ type: 'ready' }, { type: 'open-block', block_index: 0 }]],
  ['host → inspect view', HostToWebview, [{ type: 'inspect-failure', failure: { path: '/a.md', stage: 'read', code: 'not_found', message: 'm' } }]],
];

describe('fuzz: webview messages', () => {
  after(assertPrototypesClean);

  for (const [name, schema, samples] of SCHEMAS) {
    it(`${name}: any JSON, and valid messages mutated, parse or are refused; what parses re-validates`, () => {
      for (const s of samples) assert.ok(schema.safeParse(s).success, `${name}: sample ${JSON.stringify(s)}`);
      fc.assert(
        fc.property(fc.oneof(hostileJson, ...samples.map((s) => mutatedJson(s))), (json) => {
          const r = schema.safeParse(JSON.parse(json));
          // Re-validation of the parsed value, and again after the JSON trip a webview post makes.
          if (r.success) {
            assert.ok(schema.safeParse(r.data).success);
            assert.ok(schema.safeParse(JSON.parse(JSON.stringify(r.data))).success);
          }
          assertPrototypesClean();
        }),
        runs(500),
      );
      recordTrials({ area: 'fuzzing', fault: `webview messages, ${name}: arbitrary and mutated messages`, trials: trialsOf(500), outcome: 'validated or dropped (zod rejection); no crash; no pollution' }, __filename);
    });
  }

  it('the chat webview end (ChatClient): any host message is delivered, settles a request, or is dropped with a log line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(hostileJson, mutatedJson({ type: 'reply', id: 'r1', ok: true, value: { conversation_id: 'c', turn_id: 't' } }), mutatedJson({ type: 'reply', id: 'r1', ok: false, error: { code: 'c', message: 'm' } })), { maxLength: 5 }), async (messages) => {
        const posted: unknown[] = [];
        const events: unknown[] = [];
        const client = new ChatClient({ post: (m) => posted.push(m), onEvent: (e) => events.push(e), timeoutScale: 0.001 });
        const pending = client.request('ask', { conversation_id: null, question: 'q' }).then(
          (v) => ({ ok: true as const, v }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        for (const json of messages) {
          const raw: unknown = JSON.parse(json);
          const before = posted.length + events.length;
          client.receive(raw);
          if (!ChatHostToWebview.safeParse(raw).success) assert.equal(posted.length, before + 1, 'an invalid message is reported as a log');
        }
        // Closing the view settles a request no message answered (no waiting for its timeout).
        client.dispose();
        const settled = await pending;
        if (!settled.ok) assert.ok(settled.e instanceof ChatRequestError, String(settled.e));
        else assert.ok(CHAT_REQUESTS.ask.result.safeParse(settled.v).success, 'a resolved value matches the method’s result schema');
        assertPrototypesClean();
      }),
      runs(300),
    );
    recordTrials({ area: 'fuzzing', fault: 'chat webview end (ChatClient.receive): arbitrary host messages', trials: trialsOf(300), outcome: 'valid ones delivered, invalid dropped with a log; requests settle with ChatRequestError codes; no crash' }, __filename);
  });

  it('the chat host end (ChatSession over a real app): an invalid message is dropped with a warning, a valid request answered once', async () => {
    const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-fuzz-chat-'), 'data'), settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
    const request = fc.record({ method: fc.constantFrom(...CHAT_METHODS.filter((m) => m !== 'ask' && m !== 'test_connection')), params: hostileJson }).map(({ method, params }) => `{"type":"request","id":"q","method":${JSON.stringify(method)},"params":${params}}`);
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileJson, request, mutatedJson({ type: 'log', level: 'info', message: 'm' }), mutatedJson({ type: 'request', id: 'q', method: 'delete_conversation', params: { id: 'c1' } })), async (json) => {
        const posted: HostMessage[] = [];
        const warnings: string[] = [];
        const session = new ChatSession(app, {
          post: (m) => posted.push(m),
          uiLang: () => 'en',
          workspace: () => 'w0123456789abcdef',
          currentConversation: () => null,
          rememberConversation: () => {},
          openLocation: async () => {},
          openLink: async () => false,
          openTrace: async () => {},
          testConnection: async () => ({ ok: false, message: 'not in this test' }),
          building: () => false,
          setup: async () => ({ chat_ready: false, sources: 0 }),
          copy: async () => {},
          pickNoteFolder: async () => null,
          noteSaved: () => {},
          runCommand: async () => {},
          answered: () => {},
          log: { ...NULL_LOGGER, warn: (m) => warnings.push(m) },
          t: (m) => m,
        });
        session.receive({ type: 'ready' });
        const raw: unknown = JSON.parse(json);
        const parsed = ChatWebviewToHost.safeParse(raw);
        session.receive(raw);
        if (!parsed.success) assert.ok(warnings.some((w) => w.startsWith('chat: dropped an invalid message')), 'dropped with a warning');
        else if (parsed.data.type === 'request') {
          const id = parsed.data.id;
          for (let i = 0; i < 200 && !posted.some((m) => m.type === 'reply' && m.id === id); i++) await new Promise((r) => setTimeout(r, 5));
          const replies = posted.filter((m) => m.type === 'reply' && m.id === id);
          assert.equal(replies.length, 1, `one reply to ${parsed.data.method}`);
          assert.ok(ChatHostToWebview.safeParse(replies[0]).success);
        }
        session.dispose();
        assertPrototypesClean();
      }),
      runs(150),
    );
    recordTrials({ area: 'fuzzing', fault: 'chat host end (ChatSession.receive): arbitrary webview messages', trials: trialsOf(150), outcome: 'invalid dropped with a warning; each valid request answered once with a valid reply; no crash' }, __filename);
  });
});
