import { EvalFeatures } from './eval-commands';
import { PromptFeatures } from './prompt-commands';
import { type FeatureDeps, TraceFeatures } from './trace-commands';

/** Traces, prompt bundles and evaluations as editor tabs and views (issue 22): one object for the extension to hold. */
export class EditorTabs {
  readonly traces: TraceFeatures;
  readonly prompts: PromptFeatures;
  readonly evals: EvalFeatures;

  constructor(d: FeatureDeps) {
    this.traces = new TraceFeatures(d);
    this.prompts = new PromptFeatures(d.app, d.store, d.log, d.registry);
    this.evals = new EvalFeatures(d.app, this.traces, d.log);
  }

  register(cmd: (id: string, fn: (...args: never[]) => unknown) => void): void {
    this.traces.register(cmd);
    this.prompts.register(cmd);
    this.evals.register(cmd);
  }

  refresh(): void {
    this.traces.tree.refresh();
    this.prompts.tree.refresh();
  }
}
