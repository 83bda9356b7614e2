import type { Words } from './step-record';

/** What a release state's words read of a release. */
export interface ReleaseFacts {
  reason: string | null;
  detail: string | null;
}

/**
 * A release state described once (answers.md): what every host shows of it and what it means outside the
 * run. The chat view, @docqa, the Traces view, notes, the trace's spans, `docqa ask`'s exit status and
 * the gold sets read it here; adding a state is its entry below and the harness's decision to release it.
 */
export interface ReleaseState {
  /** Its name as the chat, @docqa and notes show it. */
  label: Words;
  /** What the headline says after the name, from the release (null: the name alone). */
  says(release: ReleaseFacts): Words | null;
  /** Its codicon: the chat's headline and the Traces view. */
  icon: string;
  /** Its mark in the chat: one of the tones chat.css colours (`.release.tone-…`). */
  tone: 'pass' | 'info' | 'error' | 'warning';
  /** The status of the trace's release and request spans. */
  span: 'ok' | 'error' | 'cancelled';
  /** `docqa ask`'s exit status: 0 when an answer was given (it may say what it could not do), 1 when none was. */
  exitCode: 0 | 1;
  /** What the answer shows of its evidence: the complete scopes it covered, the checks a fallback made, or nothing. */
  evidence: 'covered' | 'checked' | null;
  /** The chat offers its connection test under it (the run may have failed on a provider). */
  connectionTest: boolean;
  /** The steps end with why the run stopped searching (not when the person stopped it). */
  stopShown: boolean;
  /** A saved note states it under the answer (a plain success needs no word). */
  noted: boolean;
}

const both = (s: string): Words => ({ en: s, zh: s });

const STATES = {
  SUCCESS: { label: both('SUCCESS'), says: () => null, icon: 'pass', tone: 'pass', span: 'ok', exitCode: 0, evidence: 'covered', connectionTest: false, stopShown: true, noted: false },
  FALLBACK: {
    label: both('FALLBACK'),
    says: (r) => (r.reason === 'MISSING_REQUIRED_CONTEXT' ? { en: 'missing context: the question needs something only you can say', zh: '缺少上下文：这个问题需要只有你知道的信息' } : { en: 'insufficient evidence', zh: '证据不足' }),
    icon: 'info',
    tone: 'info',
    span: 'ok',
    exitCode: 0,
    evidence: 'checked',
    connectionTest: false,
    stopShown: true,
    noted: true,
  },
  FAILED: {
    label: both('FAILED'),
    says: (r) => {
      const why = r.detail ?? r.reason;
      return why === null ? { en: 'the run failed', zh: '运行失败' } : both(why);
    },
    icon: 'error',
    tone: 'error',
    span: 'error',
    exitCode: 1,
    evidence: null,
    connectionTest: true,
    stopShown: true,
    noted: true,
  },
  CANCELLED: { label: both('CANCELLED'), says: () => ({ en: 'stopped by you; nothing more was searched', zh: '已由你停止，没有继续检索' }), icon: 'circle-slash', tone: 'warning', span: 'cancelled', exitCode: 1, evidence: null, connectionTest: false, stopShown: false, noted: true },
} satisfies Record<string, ReleaseState>;

type Status = keyof typeof STATES;

/** Every release state, by its status. */
export const RELEASE_STATES: Readonly<Record<Status, ReleaseState>> = STATES;

/** The statuses, in their order (the schema of `release.status`: run-result.ts). */
export const RELEASE_STATUSES = Object.keys(STATES) as [Status, ...Status[]];

/** A status read from outside the schema (a trace's, perhaps a newer DocQA's): its state, or null. */
export function releaseStateOf(status: string): ReleaseState | null {
  return Object.hasOwn(STATES, status) ? RELEASE_STATES[status as Status] : null;
}
