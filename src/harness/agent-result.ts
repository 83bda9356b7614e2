/**
 * The run's results and events are the run's vocabulary, declared in src/shared/run-result.ts (a leaf
 * every layer and the webview read). This module keeps the names where branches in flight import them.
 */
export * from '../shared/run-result';
export { BlockBrief } from '../shared/step-record';
