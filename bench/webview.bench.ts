/**
 * The chat webview's cost per streamed answer delta, in Chromium, through the real path: a message
 * event → the protocol's validation → the turn's state → Preact's render of the tail block → layout.
 * The answer is first filled to 1k, 10k and 20k tokens (Markdown paragraphs with citation refs, lists
 * and code), then 200 small deltas are timed one by one, each until the page has rendered and laid it
 * out. The floor, measured in the same page, is an event the view validates and ignores (the protocol's
 * own cost). The bound is absolute (≤ 4 ms per delta at 20k tokens): that row's ratio is to it.
 */
import { eventually } from '../test/e2e/lib/wait';
import { ScriptedHost, startBrowser } from '../test/webview/lib/scripted-host';
import type { BenchRow } from './report';

const TOKENS = [1_000, 10_000, 20_000];
const DELTAS = 200;
const BUDGET_MS = 4;

/** Roughly `tokens` tokens of answer Markdown (about 4 characters a token), with refs the way the model writes them. */
function answerOf(tokens: number): string {
  const parts: string[] = [];
  let chars = 0;
  for (let i = 0; chars < tokens * 4; i++) {
    const p =
      i % 7 === 3
        ? '```python\ndef osmosis(c1, c2):\n    return (c1 - c2) * 0.5  # net flow\n```'
        : i % 5 === 2
          ? `- point ${i}: water moves across the **membrane**【来源:cell#b${i}】\n- and solutes follow the gradient`
          : `Paragraph ${i}: osmosis is the net movement of water across a selectively permeable membrane, from low to high solute concentration, until equilibrium is reached.【来源:cell#b${i}】`;
    parts.push(p);
    chars += p.length + 2;
  }
  return `${parts.join('\n\n')}\n\n`;
}

/** In the page: ms per message, each timed until rendered (a macrotask after Preact's microtask) and laid out. */
const MEASURE = (messages: unknown[]) => `(async () => {
  const ch = new MessageChannel();
  const tick = () => new Promise((r) => { ch.port1.onmessage = () => r(); ch.port2.postMessage(0); });
  const messages = ${JSON.stringify(messages)};
  let total = 0;
  for (const data of messages) {
    const t = performance.now();
    window.dispatchEvent(new MessageEvent('message', { data }));
    await tick();
    void document.body.offsetHeight;
    total += performance.now() - t;
  }
  return total / messages.length;
})()`;

export async function webviewBench(): Promise<BenchRow[]> {
  const browser = await startBrowser();
  const rows: BenchRow[] = [];
  try {
    for (const tokens of TOKENS) {
      let turn = 0;
      const host = await ScriptedHost.open(browser, {
        init: { type: 'init', ui_lang: 'en', conversation: null, conversations: [], knowledge_base: { snapshot_id: 's', state: 'ready', documents: 1, failed: [] } },
        handlers: { ask: () => ({ conversation_id: 'c1', turn_id: `t${++turn}` }) },
      });
      const { page } = host;
      await page.fill('#question', 'What is osmosis?');
      await page.keyboard.press('Enter');
      await eventually('the ask', () => host.requests('ask').length === 1, 10_000, 20);
      const ev = (event: unknown) => ({ type: 'ask_event', conversation_id: 'c1', turn_id: 't1', event });
      await host.send(ev({ type: 'run_started', run_id: 'r', snapshot_id: 's', lang: 'en', prompt_bundle: { id: 'b', version: '1', hash: 'h' } }) as never);
      await host.post(ev({ type: 'answer_delta', turn: 1, text: answerOf(tokens) }));
      await page.locator('.md-block').first().waitFor();
      const deltas = Array.from({ length: DELTAS }, (_, i) => ev({ type: 'answer_delta', turn: 1, text: i % 20 === 19 ? '\n\nNext paragraph' : ` word${i} more` }));
      const ignored = Array.from({ length: DELTAS }, (_, i) => ev({ type: 'model_delta', turn: 1, text: ` thought ${i}` }));
      await page.evaluate(MEASURE(deltas.slice(0, 20))); // warm-up: JIT
      const floor = (await page.evaluate(MEASURE(ignored))) as number;
      const ms = (await page.evaluate(MEASURE(deltas))) as number;
      if (host.problems.pageErrors.length || host.problems.csp.length) throw new Error(`the page reported problems: ${JSON.stringify(host.problems)}`);
      const name = `webview.stream.delta_ms.${tokens / 1000}k_tokens`;
      rows.push(tokens === 20_000 ? { name, value: ms, unit: 'ms', floor: BUDGET_MS, ratio: ms / BUDGET_MS, target: '<= 1' } : { name, value: ms, unit: 'ms', floor, ratio: ms / floor });
      if (tokens === 20_000) rows.push({ name: 'webview.stream.ignored_event_ms', value: floor, unit: 'ms', floor: null, ratio: null });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return rows;
}
