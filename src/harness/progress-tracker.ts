import { InformationGain } from './action-parser';
import { Thresholds } from './run-limits';
import type { StopReason } from '../shared/run-result';
export type CollectionState = 'COLLECTING' | 'SATURATED';

export const PROGRESS_VIOLATIONS = ['missing_evaluation', 'stale_evaluation', 'wrong_id', 'unexpected_evaluation', 'bad_value', 'malformed_action'] as const;
export type ProgressViolation = (typeof PROGRESS_VIOLATIONS)[number];

/** What the harness must do with a tool request, decided before anything runs. */
export type RequestDecision =
  | { kind: 'execute' }
  | { kind: 'reject_protocol'; violation: ProgressViolation; expected_tool_call_id: string | null; allowed_values: readonly InformationGain[] }
  | { kind: 'reject_duplicate' }
  /** The tool failed for a technical reason earlier in the run and is not offered again. */
  | { kind: 'reject_unavailable' }
  /** The tool is not in the run's whitelist. */
  | { kind: 'reject_unlisted' }
  | { kind: 'stop_required'; reason: StopReason }
  | { kind: 'terminate'; reason: StopReason };

/**
 * The information-gain state of one request (second seed §5–§9): completed scopes and calls, the call
 * awaiting the model's rating, consecutive NO_GAIN and protocol violations, COLLECTING/SATURATED, the
 * stop reason and whether STOP_REQUIRED was delivered. It holds identities and counts only, never tool
 * payloads or model text. It counts no rejection: the run does, once per rejected request, with its span
 * (recordRejection in request-gate.ts: counts.rejected_requests).
 */
export class ProgressTracker {
  state: CollectionState = 'COLLECTING';
  stopReason: StopReason | null = null;
  stopRequiredDelivered = false;
  pendingToolCallId: string | null = null;
  consecutiveNoGain = 0;
  consecutiveViolations = 0;
  readonly completedScopes = new Set<string>();
  readonly evaluatedCalls = new Set<string>();
  private readonly thresholds: Thresholds;

  /** Consecutive NO_GAIN (`no_gain`) or protocol violations (`violations`) that saturate collection; the defaults are Thresholds'. */
  constructor(thresholds: Partial<Thresholds> = {}) {
    this.thresholds = Thresholds.parse(thresholds);
  }

  /**
   * Decides a tool request: a saturated run gets STOP_REQUIRED once and is terminated on the next
   * request; the envelope's rating of the pending call is checked and applied; a repeated scope is
   * rejected (and counts as NO_GAIN) before the tool runs.
   */
  decide(scope: string, previous: { tool_call_id: string; information_gain: string } | undefined): RequestDecision {
    if (this.state === 'SATURATED') return this.stopOrTerminate();
    const violation = this.checkEnvelope(previous);
    if (violation) {
      this.consecutiveViolations++;
      if (this.consecutiveViolations >= this.thresholds.violations) {
        this.saturate('PROGRESS_PROTOCOL_VIOLATED');
        return this.stopOrTerminate();
      }
      return { kind: 'reject_protocol', violation, expected_tool_call_id: this.pendingToolCallId, allowed_values: InformationGain.options };
    }
    this.consecutiveViolations = 0;
    if (previous && this.pendingToolCallId) {
      this.evaluatedCalls.add(this.pendingToolCallId);
      this.pendingToolCallId = null;
      this.applyGain(previous.information_gain as InformationGain);
      if (this.isSaturated()) return this.stopOrTerminate();
    }
    if (this.completedScopes.has(scope)) {
      this.applyGain('NO_GAIN');
      if (this.isSaturated()) return this.stopOrTerminate();
      return { kind: 'reject_duplicate' };
    }
    return { kind: 'execute' };
  }

  /**
   * A turn whose Action could not be parsed (wrong format, unknown tool, bad envelope): a protocol error
   * like a bad rating, counted toward the same threshold and never as NO_GAIN.
   */
  formatViolation(): RequestDecision {
    if (this.isSaturated()) return this.stopOrTerminate();
    this.consecutiveViolations++;
    if (this.consecutiveViolations >= this.thresholds.violations) {
      this.saturate('PROGRESS_PROTOCOL_VIOLATED');
      return this.stopOrTerminate();
    }
    return { kind: 'reject_protocol', violation: 'malformed_action', expected_tool_call_id: this.pendingToolCallId, allowed_values: InformationGain.options };
  }

  /**
   * A request that passed every check but names a tool the run took out of service (it failed for a
   * technical reason): rejected before it runs, and no progress, like a repeated scope.
   */
  rejectUnavailable(): RequestDecision {
    this.applyGain('NO_GAIN');
    if (this.isSaturated()) return this.stopOrTerminate();
    return { kind: 'reject_unavailable' };
  }

  /** A tool call that failed for a technical reason: it ran (its scope is done) but gives no information gain either way (seed: 不产生). */
  recordFailure(scope: string): void {
    this.completedScopes.add(scope);
  }

  /**
   * A tool call that returned a business error (scope_not_found, invalid_argument): its scope is done (the
   * same request would fail the same way) but it is no NO_GAIN: the model corrects it (quality seed §1.3),
   * and nothing awaits its rating.
   */
  recordBusinessError(scope: string): void {
    this.completedScopes.add(scope);
  }

  /**
   * A request for a tool outside the run's whitelist (Appendix A.1: tool_unavailable). Not a
   * progress-protocol violation and no information either way; only the same request again is a
   * repeated scope (NO_GAIN), so a model stuck on it still saturates. Its rating, if any, is not read:
   * the pending call stays pending.
   */
  decideUnlisted(scope: string): RequestDecision {
    if (this.state === 'SATURATED') return this.stopOrTerminate();
    if (this.completedScopes.has(scope)) {
      this.applyGain('NO_GAIN');
      if (this.isSaturated()) return this.stopOrTerminate();
      return { kind: 'reject_duplicate' };
    }
    this.completedScopes.add(scope);
    return { kind: 'reject_unlisted' };
  }

  /** After a tool ran: an empty result is NO_GAIN at once; a non-empty one awaits the model's rating. */
  recordResult(toolCallId: string, scope: string, empty: boolean): void {
    this.completedScopes.add(scope);
    if (empty) {
      this.evaluatedCalls.add(toolCallId);
      this.applyGain('NO_GAIN');
    } else this.pendingToolCallId = toolCallId;
  }

  /** A method, not a field read, so that checks after a mutating call are not narrowed away. */
  isSaturated(): boolean {
    return this.state === 'SATURATED';
  }

  /** The budget ran out: a distinct stop reason, never confused with saturation. */
  budgetExhausted(): void {
    this.saturate('BUDGET_LIMIT_REACHED');
  }

  private checkEnvelope(previous: { tool_call_id: string; information_gain: string } | undefined): ProgressViolation | null {
    if (!this.pendingToolCallId) return previous ? 'unexpected_evaluation' : null;
    if (!previous) return 'missing_evaluation';
    if (previous.tool_call_id !== this.pendingToolCallId) return this.evaluatedCalls.has(previous.tool_call_id) ? 'stale_evaluation' : 'wrong_id';
    if (!InformationGain.safeParse(previous.information_gain).success) return 'bad_value';
    return null;
  }

  private applyGain(gain: InformationGain): void {
    if (gain === 'GAINED') {
      this.consecutiveNoGain = 0;
      return;
    }
    this.consecutiveNoGain++;
    if (this.consecutiveNoGain >= this.thresholds.no_gain) this.saturate('INFORMATION_SATURATED');
  }

  private saturate(reason: StopReason): void {
    if (this.state === 'SATURATED') return;
    this.state = 'SATURATED';
    this.stopReason = reason;
  }

  private stopOrTerminate(): RequestDecision {
    const reason = this.stopReason!;
    if (!this.stopRequiredDelivered) {
      this.stopRequiredDelivered = true;
      return { kind: 'stop_required', reason };
    }
    return { kind: 'terminate', reason };
  }
}
