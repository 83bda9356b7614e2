/**
 * Every schema a host or a webview exchanges with the application layer, in one place: requests,
 * events and reports are zod schemas with inferred types, so the webview protocol reuses them instead
 * of restating them.
 */
export { AskRequest } from './ask';
export { AskEvent } from './ask-event';
export { BuildEvent, BuildPhase, BuildState, BuildStatus } from './build-job';
export { ConnectionReport } from './connection-test';
export { AppSettings } from './settings';
export { AgentEvent, AgentResult, BlockBrief, Citation, Counts, Ledger, Release, ReleaseStatus, RemovedCitation, Tokens } from '../harness/agent-result';
export { ProgressSnapshot } from '../harness/progress-snapshot';
export { StepOutcome, StepScope } from '../shared/step-record';
export { ProviderFailure } from '../common/provider-failure';
export { BlockLookup, BlockRequest } from './block-lookup';
export { ConversationAskEvent, ConversationAskRequest } from './conversations/ask-in-conversation';
export { Conversation, ConversationListing, ConversationSummary, ConversationTurn, TurnState, TurnStep, UnreadableConversation } from './conversations/conversation';
export { SkippedEntry } from '../index/sources/secret-files';
