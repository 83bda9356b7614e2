import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { countTokens } from '../../src/common/tokenizer';
import { Budgets } from '../../src/harness/budget';
import { type EarlierTurn, conversationContext, turnLine } from '../../src/harness/conversation-context';
import { baselineDir, loadBundle } from '../../src/harness/prompt-bundle';
import { observationsOf } from '../fakes/scripted-replies';
import { tempDir } from '../helpers';
import { type AgentSetup, act, recordingTracer, systemOf, useAgentSetup } from './agent-setup';

/**
 * Follow-up questions over real HTTP: the earlier questions and released answers go into the next run's
 * prompts as the conversation section — never their evidence, never their citations — and are paid for
 * like the rest of the prompt.
 */
describe('follow-up questions: the conversation section', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  beforeEach(() => {
    t = setup();
  });

  const finish = (text: string) => `Thought: enough.\nAction: Finish[${text}]`;
  const section = (turns: EarlierTurn[], max = 2000) => conversationContext(t.bundle.conversation, turns, max);

  /** A first question that searches and cites, as a conversation's first turn; its evidence as the model saw it. */
  async function firstTurn(): Promise<{ turn: EarlierTurn; ref: string; evidence: string[] }> {
    const start = t.server.requests.length;
    t.server.scriptChat(act('search_blocks', { query: 'cell membrane' }), finish('The membrane controls what enters the cell【来源:{{ref:1}}】.'));
    const r = await t.run('What does the cell membrane do?');
    assert.equal(r.release.status, 'SUCCESS');
    const evidence = observationsOf(t.server.requests[start + 1]!.body).flatMap((o) => (o.payload?.blocks ?? []).map((b) => b.text));
    assert.ok(evidence.length > 0);
    return { turn: { question: 'What does the cell membrane do?', answer: r.answer! }, ref: r.citations[0]!.ref, evidence };
  }

  it("a follow-up's prompts carry the earlier question and answer (markers stripped) and none of the earlier evidence; the final round's too", async () => {
    const first = await firstTurn();
    assert.ok(first.turn.answer.includes(`【来源:${first.ref}】`));
    const ctx = section([first.turn]);
    assert.deepEqual([ctx.turns, ctx.dropped], [1, 0]);
    const start = t.server.requests.length;
    t.server.scriptChat(finish('Its weakness is that it lets small non-polar molecules through.'));
    const rec = recordingTracer();
    const r = await t.run('What are its weaknesses?', { conversation: ctx, tracer: rec.tracer });
    assert.equal(r.release.status, 'SUCCESS');
    const system = systemOf(t.server.requests[start]!.body);
    const line = JSON.stringify({ question: 'What does the cell membrane do?', answer: 'The membrane controls what enters the cell.' });
    assert.ok(system.includes(`</termination>\n<conversation>\n`), 'the section stands before the question');
    assert.ok(system.includes(`\n${line}\n</conversation>\n<question>\nWhat are its weaknesses?\n</question>`));
    assert.ok(!system.includes(first.ref), 'no earlier citation');
    for (const text of first.evidence) assert.ok(!system.includes(text), 'no earlier evidence');
    assert.deepEqual(observationsOf(t.server.requests[start]!.body), [], 'no earlier Observation');
    const request = rec.spans('request')[0]!.attributes;
    assert.deepEqual([request.conversation_turns, request.conversation_turns_dropped, request.conversation_tokens], [1, 0, ctx.tokens]);

    // The final round (request budget spent) keeps the conversation: "it" still needs its referent.
    const p = await firstTurnBudget(ctx);
    const finalStart = t.server.requests.length;
    t.server.scriptChat(act('search_blocks', { query: 'membrane weakness' }), finish('Small molecules pass.'));
    const f = await t.run('What are its weaknesses?', { conversation: ctx, budgets: Budgets.parse({ max_request_tokens: p - 1, finalization_reserve_tokens: 300 }) });
    assert.equal(f.stop_reason, 'BUDGET_LIMIT_REACHED');
    const finalSystem = systemOf(t.server.requests[finalStart + 1]!.body);
    assert.ok(!finalSystem.includes('<tools>') && finalSystem.includes(`${line}\n</conversation>\n<question>`));
  });

  /** The request budget at which a follow-up's one search result just fits (used + context with the result + reserve). */
  async function firstTurnBudget(ctx: ReturnType<typeof section>): Promise<number> {
    const rec = recordingTracer();
    t.server.scriptChat(act('search_blocks', { query: 'membrane weakness' }), finish('Small molecules pass.'));
    await t.run('What are its weaknesses?', { conversation: ctx, tracer: rec.tracer, budgets: Budgets.parse({ finalization_reserve_tokens: 300 }) });
    const a = rec.spans('budget_decision').find((s) => s.attributes.check === 'admission')!.attributes;
    return (a.used_request_tokens as number) + (a.context_tokens_with_result as number) + 300;
  }

  it('the conversation is counted in every prompt: the context grows by its tokens, and a context budget that fits the question alone stops the follow-up', async () => {
    const first = await firstTurn();
    const ctx = section([first.turn]);
    const contextOf = async (conversation?: typeof ctx, budgets = Budgets.parse({ finalization_reserve_tokens: 300 })) => {
      const rec = recordingTracer();
      const start = t.server.requests.length;
      t.server.scriptChat(finish('Small molecules pass.'));
      const r = await t.run('What are its weaknesses?', { conversation, budgets, tracer: rec.tracer });
      return { r, turn: rec.spans('turn')[0]?.attributes, calls: t.server.requests.length - start, rec };
    };
    const fresh = await contextOf();
    const follow = await contextOf(ctx);
    const grew = (follow.turn!.context_tokens as number) - (fresh.turn!.context_tokens as number);
    assert.ok(ctx.tokens > 0);
    // Exactly the section: its line break joins the one before it in a single newline token.
    assert.equal(grew, ctx.tokens);
    assert.ok(follow.r.tokens.prompt > fresh.r.tokens.prompt, 'the provider was sent (and billed) the conversation');

    // At the edge: the context budget that holds the fresh question exactly (context + reserve) ...
    const edge = Budgets.parse({ max_context_tokens: (fresh.turn!.context_tokens as number) + 300, finalization_reserve_tokens: 300 });
    const fits = await contextOf(undefined, edge);
    assert.deepEqual([fits.r.release.status, fits.calls], ['SUCCESS', 1]);
    // ... cannot hold the follow-up: no call is made, the budget decision says why.
    t.server.scriptChat(finish('unused'));
    const rec = recordingTracer();
    const start = t.server.requests.length;
    const over = await t.run('What are its weaknesses?', { conversation: ctx, budgets: edge, tracer: rec.tracer });
    assert.deepEqual([over.release.status, over.release.reason, t.server.requests.length - start], ['FAILED', 'CONTEXT_BUDGET_EXCEEDED', 0]);
    const decision = rec.spans('budget_decision')[0]!.attributes;
    assert.deepEqual([decision.decision, decision.reason, decision.context_tokens], ['stop', 'context_budget_exceeded', follow.turn!.context_tokens]);
    // Consume the unused reply, so later tests start clean.
    (t.server as unknown as { chatScript: unknown[] }).chatScript.length = 0;
  });

  it('an old ref from an earlier answer is no citation of the new run: re-cited, it is removed as not_returned', async () => {
    const first = await firstTurn();
    t.server.scriptChat(finish(`As said before, it controls entry【来源:${first.ref}】.`));
    const r = await t.run('Remind me what it does?', { conversation: section([first.turn]) });
    assert.equal(r.release.status, 'SUCCESS');
    assert.deepEqual(r.citations, []);
    assert.deepEqual(r.removed_citations, [{ ref: first.ref, reason: 'not_returned' }]);
    assert.equal(r.answer, 'As said before, it controls entry.');
  });

  it('the bound keeps the most recent turns that fit, drops the oldest and says how many', async () => {
    const turns: EarlierTurn[] = [1, 2, 3, 4].map((n) => ({ question: `Question ${n}?`, answer: `Answer ${n} ${'word '.repeat(20 * n)}`.trim() }));
    const cost = (ts: EarlierTurn[]) => ts.reduce((n, x) => n + countTokens(turnLine(x)) + 1, 0);
    const exact = section(turns, cost(turns.slice(2)));
    assert.deepEqual([exact.turns, exact.dropped], [2, 2]);
    assert.deepEqual([section(turns, cost(turns.slice(2)) - 1).turns, section(turns, cost(turns)).turns, section(turns, 0).turns], [1, 4, 0]);
    // The newest turn alone too big: nothing goes in, every turn is counted as dropped.
    assert.deepEqual(section(turns, cost(turns.slice(3)) - 1), { text: '', turns: 0, dropped: 4, tokens: 0 });
    const start = t.server.requests.length;
    const rec = recordingTracer();
    t.server.scriptChat(finish('ok'));
    await t.run('And the last one?', { conversation: exact, tracer: rec.tracer });
    const system = systemOf(t.server.requests[start]!.body);
    assert.ok(!system.includes('Question 1?') && !system.includes('Question 2?') && system.includes('Question 3?') && system.includes('Question 4?'));
    assert.ok(system.indexOf('Question 3?') < system.indexOf('Question 4?'), 'oldest first');
    const request = rec.spans('request')[0]!.attributes;
    assert.deepEqual([request.conversation_turns, request.conversation_turns_dropped], [2, 2]);
  });

  it('an empty conversation sends the same prompt as before the format change (a format-2 copy of the baseline), and as no conversation at all', async () => {
    const dir = path.join(tempDir(), 'old');
    fs.mkdirSync(dir);
    const src = path.join(baselineDir(), 'baseline-en');
    for (const f of ['system.md', 'final.md']) fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(src, f), 'utf8').replace('{conversation}\n', ''));
    const meta = JSON.parse(fs.readFileSync(path.join(src, 'bundle.json'), 'utf8')) as Record<string, unknown>;
    delete meta.conversation_template;
    fs.writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify({ ...meta, formatVersion: 2 }));
    const old = await loadBundle(dir);
    const prompts: string[] = [];
    for (const extra of [{ bundle: old }, {}, { conversation: section([]) }]) {
      const start = t.server.requests.length;
      t.server.scriptChat(finish('ok'));
      await t.run('What is a cell?', extra);
      prompts.push(JSON.stringify(t.server.requests[start]!.body.messages));
    }
    assert.ok(!prompts[0]!.includes('conversation'));
    assert.deepEqual(prompts.slice(1), [prompts[0], prompts[0]]);
  });
});
