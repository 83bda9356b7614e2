import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import type { HostChatModel } from '../../src/app/host-model';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { DocQaError, UsageError } from '../../src/common/errors';
import { LmRefusal, hostModelOf } from '../../src/vscode/lm-chat-model';
import { OPEN_CITATION, OPEN_TRACE, type ParticipantStream, answerInChat } from '../../src/vscode/participant-handler';
import { eventually } from '../e2e/lib/wait';
import { fakeLmPort, zhTranslate } from '../fakes/lm-port';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { observationsOf } from '../fakes/scripted-replies';
import { fixture, tempDir } from '../helpers';

/** A ChatResponseStream that records what @docqa writes, in order. */
function recordingStream(onProgress?: (text: string) => void) {
  const parts: Array<{ kind: 'progress' | 'markdown' | 'lines' | 'button'; text: string; trusted?: readonly string[]; args?: unknown[]; command?: string }> = [];
  const stream: ParticipantStream = {
    progress: (text) => {
      parts.push({ kind: 'progress', text });
      onProgress?.(text);
    },
    markdown: (text, trusted) => void parts.push({ kind: 'markdown', text, trusted }),
    lines: (p, s, e) => void parts.push({ kind: 'lines', text: `${p}:${s}-${e}` }),
    button: (command, title, args) => void parts.push({ kind: 'button', text: title, command, args }),
  };
  const markdown = () => parts.filter((p) => p.kind === 'markdown').map((p) => p.text).join('');
  return { stream, parts, markdown };
}

/**
 * A run's trace meta, once the trace (finished in the background) is written: until its folder exists the
 * store says trace_not_found, which is "not yet" here (it failed the test on a busy machine).
 */
async function traceMeta(app: DocQaApp, runId: string): Promise<Record<string, unknown>> {
  let meta: unknown = null;
  const written = async () => {
    try {
      return (await app.showTrace(runId)).meta;
    } catch (err) {
      if (err instanceof DocQaError && err.code === 'trace_not_found') return null;
      throw err;
    }
  };
  await eventually('the trace', async () => Boolean((meta = await written())), 10_000, 50);
  return meta as Record<string, unknown>;
}

describe('@docqa: the participant handler over the real application layer and the fake model server', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer().start();
  });
  after(() => server.close());

  async function setup(o: { chatBase?: string; key?: string } = {}) {
    const notes = tempDir('docqa-participant-notes-');
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notes, 'cells.md'));
    fs.writeFileSync(path.join(notes, 'other.md'), '# Other\n\nThe mitochondria make energy for the cell.\n');
    const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-participant-'), 'data'), settings: AppSettings.parse({ chat: { base_url: o.chatBase ?? server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys(o.key, undefined), appVersion: 'test' });
    await app.addSources([notes]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    return { app, notes };
  }
  const base = { command: undefined, attached: [], history: [], hostModel: async () => null, lastRunId: null, lang: 'en' as const };

  it('streams the steps as progress lines, the answer as Markdown with its verified citation as a link and a reference at the cited lines, then the release, completeness, ledger and a trace button', async () => {
    const { app, notes } = await setup({ key: 'sk-test' });
    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]', 'Thought: done.\nAction: Finish[It controls what enters the cell【来源:{{ref:1}}】 and cites a made-up block【来源:zz#99】.]');
    const rec = recordingStream();
    const meta = await answerInChat(app, { ...base, prompt: 'What does the cell membrane do?' }, rec.stream, new AbortController().signal);
    assert.equal(meta.status, 'SUCCESS');
    assert.ok(meta.run_id);
    const progress = rec.parts.filter((p) => p.kind === 'progress').map((p) => p.text);
    assert.ok(progress.some((t) => /^Searching .* for “cell membrane”…$/.test(t)), progress.join(' | '));
    assert.ok(progress.some((t) => /: \d+ blocks?$/.test(t)), progress.join(' | '));
    const answer = rec.parts.find((p) => p.kind === 'markdown')!;
    assert.match(answer.text, /It controls what enters the cell \[\[1\]\]\(command:docqa\.openCitation\?/);
    assert.deepEqual(answer.trusted, [OPEN_CITATION], 'only the citation command is trusted in the answer');
    const link = decodeURIComponent(/command:docqa\.openCitation\?([^ )]+)/.exec(answer.text)![1]!);
    const [arg] = JSON.parse(link) as [{ ref: string; snapshot_id: string }];
    assert.match(arg.ref, /^[^#]+#[^#]+$/);
    const lines = rec.parts.filter((p) => p.kind === 'lines');
    assert.equal(lines.length, 1);
    assert.match(lines[0]!.text, new RegExp(`^${fs.realpathSync(path.join(notes, 'cells.md')).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+-\\d+$`));
    const words = rec.markdown();
    assert.match(words, /Unverified sources removed[^]*`zz#99`: no tool returned this block in this run/);
    assert.match(words, /\*\*SUCCESS\*\*/);
    assert.match(words, /\*\*Ledger\*\*: .*tool calls \d+ of \d+/);
    assert.ok(words.indexOf('SUCCESS') > words.indexOf('It controls'), 'the release follows the answer');
    const trace = rec.parts.find((p) => p.kind === 'button' && p.command === OPEN_TRACE)!;
    assert.deepEqual(trace.args, [meta.run_id]);
    assert.match(meta.answer!, /It controls what enters the cell/);
  });

  it('a PDF page citation is a button that opens the page; scan_term coverage is the completeness statement; a partial knowledge base is said in words', async () => {
    const notes = tempDir('docqa-participant-pdf-');
    fs.copyFileSync(fixture('pdf', 'cell-lecture.pdf'), path.join(notes, 'lecture.pdf'));
    fs.copyFileSync(fixture('bad', 'broken.pdf'), path.join(notes, 'broken.pdf'));
    const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-participant-'), 'data'), settings: AppSettings.parse({ chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys('sk-test', undefined), appVersion: 'test' });
    await app.addSources([notes]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
    const readHitDocument = (body: Record<string, unknown>) => `Thought: read.\nAction: list_blocks[${JSON.stringify({ input: { doc_id: observationsOf(body).at(-1)!.payload!.hits![0]!.ref.split('#')[0] }, previous_observation: { tool_call_id: 'call-1', information_gain: 'GAINED' } })}]`;
    server.scriptChat('Thought: scan.\nAction: scan_term[{"input": {"term": "cell"}}]', readHitDocument, 'Thought: done.\nAction: Finish[Cells are the unit of life【来源:{{ref:1}}】.]');
    const rec = recordingStream();
    const meta = await answerInChat(app, { ...base, prompt: 'What is a cell?' }, rec.stream, new AbortController().signal);
    assert.deepEqual(server.scriptErrors, []);
    assert.equal(meta.status, 'SUCCESS', rec.markdown());
    const page = rec.parts.find((p) => p.kind === 'button' && p.command === OPEN_CITATION);
    assert.ok(page, JSON.stringify(rec.parts.filter((p) => p.kind !== 'progress')));
    assert.match(page.text, / · p\. \d+$/);
    assert.match((page.args![0] as { ref: string }).ref, /^[^#]+#[^#]+$/);
    assert.equal(rec.parts.filter((p) => p.kind === 'lines').length, 0, 'a PDF block is no line reference');
    const words = rec.markdown();
    assert.match(words, /Scope covered: 1 of 1 documents scanned for “cell”; all 4 blocks of “Lecture 3: The Cell Membrane”/);
    assert.match(words, /1 document could not be indexed: .*broken.*; this answer is based on the other 1\./);
  });

  it('a follow-up carries the chat history as the conversation section, counted in the run and its trace; /trace opens the last trace', async () => {
    const { app } = await setup({ key: 'sk-test' });
    server.scriptChat('Thought: done.\nAction: Finish[I could not check that.]');
    const before = server.requests.length;
    const rec = recordingStream();
    const meta = await answerInChat(app, { ...base, prompt: 'And where is it?', history: [{ question: 'What does the cell membrane do?', answer: 'It controls what enters the cell.' }] }, rec.stream, new AbortController().signal);
    const sent = JSON.stringify(server.requests.slice(before).map((r) => r.body));
    assert.ok(sent.includes('What does the cell membrane do?') && sent.includes('It controls what enters the cell.'), 'the earlier turn is in the prompt');
    assert.equal(((await traceMeta(app, meta.run_id!)) as { conversation?: { turns: number } }).conversation?.turns, 1);

    const t = recordingStream();
    const again = await answerInChat(app, { ...base, prompt: '', command: 'trace', lastRunId: meta.run_id }, t.stream, new AbortController().signal);
    assert.deepEqual(t.parts.map((p) => [p.kind, p.command, p.args]), [['button', OPEN_TRACE, [meta.run_id]]]);
    assert.equal(again.run_id, meta.run_id);
    const none = recordingStream();
    await answerInChat(app, { ...base, prompt: '', command: 'trace' }, none.stream, new AbortController().signal);
    assert.match(none.markdown(), /No @docqa answer in this chat yet/);
  });

  it('the cancellation token ends the run as CANCELLED, said in words', async () => {
    const { app } = await setup({ key: 'sk-test' });
    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "cell"}}]', 'Thought: more.\nAction: search_blocks[{"input": {"query": "membrane"}}]', 'Thought: done.\nAction: Finish[x]');
    const ac = new AbortController();
    const rec = recordingStream((text) => {
      if (text.endsWith('…')) ac.abort();
    });
    const meta = await answerInChat(app, { ...base, prompt: 'What is a cell?' }, rec.stream, ac.signal);
    assert.equal(meta.status, 'CANCELLED');
    assert.match(rec.markdown(), /\*\*CANCELLED · stopped by you; nothing more was searched\*\*/);
    server.resetScript();
  });

  it('/sources limits the question to the documents attached with #; a file outside the index is refused in words before anything is sent', async () => {
    const { app, notes } = await setup({ key: 'sk-test' });
    server.scriptChat('Thought: done.\nAction: Finish[Only the other note.]');
    const rec = recordingStream();
    const meta = await answerInChat(app, { ...base, prompt: 'What makes energy?', command: 'sources', attached: [fs.realpathSync(path.join(notes, 'other.md'))] }, rec.stream, new AbortController().signal);
    assert.ok(meta.run_id);
    assert.equal(rec.parts[0]?.text, 'searched only “Other” (1 of 2)', 'the scope is the first progress line');

    const before = server.requests.length;
    const refused = recordingStream();
    const r = await answerInChat(app, { ...base, prompt: 'What?', command: 'sources', attached: ['/nowhere/else.md'] }, refused.stream, new AbortController().signal);
    assert.equal(r.run_id, null);
    assert.match(refused.markdown(), /None of the attached files is in the index: \/nowhere\/else\.md/);
    const none = recordingStream();
    await answerInChat(app, { ...base, prompt: 'What?', command: 'sources' }, none.stream, new AbortController().signal);
    assert.match(none.markdown(), /Attach the documents to ask about with #/);
    assert.equal(server.requests.length, before, 'nothing was sent');
    server.resetScript();
  });

  it('answers through a VS Code language model with no DocQA chat key: tokens counted by the model, the manifest names provider and model', async () => {
    // A cloud endpoint without a key would be refused: the host model needs none.
    const { app } = await setup({ chatBase: 'https://api.example.com/v1' });
    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]', 'Thought: done.\nAction: Finish[It controls what enters the cell【来源:{{ref:1}}】.]');
    const port = fakeLmPort(server);
    const rec = recordingStream();
    const meta = await answerInChat(app, { ...base, prompt: 'What does the cell membrane do?', hostModel: async () => hostModelOf(port) }, rec.stream, new AbortController().signal);
    assert.equal(meta.status, 'SUCCESS', rec.markdown());
    assert.ok(port.counted > 0, "the model's own counter counted the tokens");
    const trace = { meta: await traceMeta(app, meta.run_id!) };
    const manifest = (trace.meta as { manifest: { chat: { provider?: string; model: string } } }).manifest;
    assert.deepEqual([manifest.chat.provider, manifest.chat.model], ['vscode-lm', 'test/fake-model']);
    assert.equal((trace.meta as { tokens: { estimated?: { chat: boolean } } }).tokens.estimated?.chat, false, 'the chat tokens are the model\'s count, not an estimate');

    // Without the host model the same app refuses for want of a key, before anything is sent.
    const none = recordingStream();
    const refused = await answerInChat(app, { ...base, prompt: 'What does the cell membrane do?' }, none.stream, new AbortController().signal);
    assert.equal(refused.status, 'FAILED');
    assert.match(none.markdown(), /no chat API key/);
  });

  it("a LanguageModelError (no permission, quota) becomes the release's words with what to do", async () => {
    const { app } = await setup({ chatBase: 'https://api.example.com/v1' });
    for (const [code, words] of [
      ['NoPermissions', /did not allow DocQA to use the language model Fake Model.*Allow it when VS Code asks/],
      ['Blocked', /quota or rate limit is reached.*Wait, check your plan's usage/],
    ] as const) {
      const rec = recordingStream();
      const meta = await answerInChat(app, { ...base, prompt: 'What does the cell membrane do?', hostModel: async () => hostModelOf(fakeLmPort(server, new LmRefusal(code, 'refused by the test'))) }, rec.stream, new AbortController().signal);
      assert.equal(meta.status, 'FAILED');
      assert.match(rec.markdown(), words);
    }
  });

  it('in a Chinese VS Code, the vscode-lm path says its failures in Chinese: no model to look up, a refusal, an empty answer', async () => {
    const { app } = await setup({ chatBase: 'https://api.example.com/v1' });
    const zh = zhTranslate();
    const ask = async (hostModel: () => Promise<HostChatModel | null>) => {
      const rec = recordingStream();
      const meta = await answerInChat(app, { ...base, lang: 'zh', prompt: '细胞膜有什么作用？', hostModel }, rec.stream, new AbortController().signal);
      assert.equal(meta.status, 'FAILED');
      return rec.markdown();
    };
    // The lookup (lm-models.ts) fails before any run: the same FAILED line as any failed answer, in the UI's words.
    const before = server.requests.length;
    const none = await ask(async () => {
      throw new UsageError(zh('No VS Code language model is available: add one to VS Code (or sign in to Copilot), then run “DocQA: Pick VS Code Language Model”, or set {0} to "endpoint". Nothing was sent.', 'docqa.chat.provider'));
    });
    assert.match(none, /^\*\*FAILED\*\* · 没有可用的 VS Code 语言模型：.*“DocQA: 选择 VS Code 语言模型”.*docqa\.chat\.provider/);
    assert.equal(server.requests.length, before, 'nothing was sent');
    const refused = await ask(async () => hostModelOf(fakeLmPort(server, new LmRefusal('Blocked', 'quota exceeded')), zh));
    assert.match(refused, /语言模型 Fake Model 拒绝了请求：已达到配额或速率限制（quota exceeded）/);
    // A model whose stream ends with no text at all.
    const empty = await ask(async () => hostModelOf({ ...fakeLmPort(server), send: async function* () {} }, zh));
    assert.match(empty, /语言模型 Fake Model 没有给出任何回答/);
    for (const words of [none, refused, empty]) assert.doesNotMatch(words, /language model|Try again|Pick another/i, words);
  });
});
