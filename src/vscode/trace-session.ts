import type { DocQaApp } from '../app/docqa-app';
import { DocQaError, errorMessage } from '../common/errors';
import type { CitationLocation } from '../shared/citation-target';
import { type HostToTraceView, TraceViewToHost, type TraceData } from '../shared/trace-protocol';
import { readTrace } from '../trace/trace-store';

/**
 * The host side of one trace-viewer webview, without `vscode`: it answers the view's messages through the
 * application layer, and leaves what only an editor can do (open a document, the clipboard, notifications)
 * to `TraceHost`. The extension gives it VS Code's; the webview tests give it a page's.
 */
export interface TraceHost {
  post(message: HostToTraceView): void;
  /** Opens read-only text (a turn's prompt). */
  openText(title: string, content: string): Promise<void>;
  /** Puts the run id on the clipboard and says so. */
  copy(text: string): Promise<void>;
  notify(kind: 'info' | 'error', message: string): void;
  openTrace(runId: string): Promise<void>;
  /** Opens a cited block at its spot (docqa.openCitation); absent where the host cannot. */
  openCitation?(target: CitationLocation): Promise<void>;
  log(line: string): void;
}

export interface SessionOptions {
  language: string;
  /** The configured OTLP endpoint, read when it is needed (null: not configured, the action is not offered). */
  otlpEndpoint: () => string | null;
  /** How the host asks for a full trace, for the "this trace keeps no prompts" message. */
  fullTraceHint: string;
}

/** A trace as the view shows it: read from the data directory as it is on disk (already redacted). */
export async function loadTraceData(app: DocQaApp, runId: string): Promise<TraceData> {
  const t = await readTrace(app.dir, runId);
  return { run_id: t.run_id, meta: t.meta, spans: t.spans, artifacts: [...t.artifacts.values()], unreadable_lines: t.unreadable_lines };
}

/** The messages a turn was sent, as one text (the CLI's `trace prompt` layout). */
export function promptText(messages: ReadonlyArray<{ role: string; content: string }>): string {
  return messages.map((m) => `----- ${m.role} -----\n${m.content}\n`).join('');
}

const codeOf = (err: unknown) => (err instanceof DocQaError ? err.code : 'internal');

export class TraceSession {
  /** The first message, posted (again) whenever the view says it is ready. */
  private first: HostToTraceView | null = null;
  private viewReady = false;

  constructor(
    private readonly app: DocQaApp,
    /** null for an evaluation's tab: its actions are about one run, opened from it. */
    private readonly runId: string | null,
    private readonly host: TraceHost,
    private readonly o: SessionOptions,
  ) {}

  /** What the view shows first: the trace, read now, or the evaluation given. */
  async prepare(shown?: HostToTraceView): Promise<void> {
    this.first = shown ?? { type: 'show-trace', language: this.o.language, otlp: this.o.otlpEndpoint() !== null, trace: await loadTraceData(this.app, this.runId!) };
    // Nothing is posted before the view says `ready`; if it already has, the trace goes now.
    if (this.viewReady) this.host.post(this.first);
  }

  /** One message from the view: validated (an invalid one is dropped and logged), then answered. */
  async receive(raw: unknown): Promise<void> {
    const parsed = TraceViewToHost.safeParse(raw);
    if (!parsed.success) {
      this.host.log(`trace view: dropped an invalid message: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'ready':
        this.viewReady = true;
        if (this.first) this.host.post(this.first);
        return;
      case 'replay':
        return this.answer(m.id, async () => ({ type: 'replay-result', id: m.id, report: await this.app.replayTrace(this.run()) }));
      case 'export-otlp':
        return this.answer(m.id, async () => {
          const url = this.o.otlpEndpoint();
          if (!url) throw new DocQaError('invalid_argument', 'no OTLP endpoint is configured (docqa.trace.otlpEndpoint)');
          return { type: 'export-result', id: m.id, spans: (await this.app.exportTrace(this.run(), url)).spans };
        });
      case 'show-prompt':
        try {
          const messages = await this.app.promptOfTurn(this.run(), m.turn, this.o.fullTraceHint);
          await this.host.openText(`prompt-${this.run()}-turn-${m.turn}.txt`, promptText(messages));
        } catch (err) {
          this.host.notify('error', errorMessage(err));
        }
        return;
      case 'copy-run-id':
        try {
          await this.host.copy(this.run());
        } catch (err) {
          this.host.notify('error', errorMessage(err));
        }
        return;
      case 'open-trace':
        try {
          await this.host.openTrace(m.run_id);
        } catch (err) {
          this.host.notify('error', errorMessage(err));
        }
        return;
      case 'open-citation':
        try {
          await this.openCitation(m.ref);
        } catch (err) {
          this.host.notify('error', errorMessage(err));
        }
        return;
    }
  }

  /** A citation of this run, looked up in the snapshot the run used (the active one when that is gone), then opened. */
  private async openCitation(ref: string): Promise<void> {
    if (!this.host.openCitation) throw new DocQaError('invalid_argument', 'this view cannot open citations');
    const [doc_id, block_id] = ref.split('#') as [string, string];
    const snapshot_id = (await readTrace(this.app.dir, this.run())).meta?.manifest.snapshot.id;
    const b = await this.app.block({ doc_id, block_id, ...(snapshot_id ? { snapshot_id } : {}) });
    if (!b.found) throw new DocQaError(b.reason, b.message);
    if (!b.file_exists) throw new DocQaError('source_not_found', `the cited file ${b.path} no longer exists`);
    await this.host.openCitation({ path: b.path, location: b.location, text: b.text, title: b.doc_title, content_hash: b.content_hash });
  }

  private run(): string {
    if (!this.runId) throw new DocQaError('invalid_argument', 'this view shows no single run');
    return this.runId;
  }

  /** Exactly one reply per request: the result, or the error's code and message. */
  private async answer(id: number, fn: () => Promise<HostToTraceView>): Promise<void> {
    let reply: HostToTraceView;
    try {
      reply = await fn();
    } catch (err) {
      this.host.log(`trace view request ${id}: ${errorMessage(err)}`);
      reply = { type: 'request-failed', id, code: codeOf(err), message: errorMessage(err) };
    }
    this.host.post(reply);
  }
}
