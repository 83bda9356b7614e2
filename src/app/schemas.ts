/**
 * Every schema a host or a webview exchanges with the application layer, in one place: requests,
 * events and reports are zod schemas with inferred types, so the webview protocol reuses them instead
 * of restating them.
 */
export { AskRequest } from './ask';
export { AskEvent } from '../shared/ask-event';
export { BuildEvent, BuildPhase, BuildState, BuildStatus } from './build-job';
export { ConnectionReport } from './connection-test';
export { AppSettings } from './settings';
export { AgentEvent, AgentResult, Citation, Counts, Ledger, ProgressSnapshot, Release, ReleaseStatus, RemovedCitation, StopReason, Tokens } from '../shared/run-result';
export { BlockBrief, StepOutcome, StepScope } from '../shared/step-record';
export { ProviderFailure } from '../shared/provider-failure';
export { BlockLookup, BlockRequest } from './block-lookup';
export { ConversationAskEvent, ConversationAskRequest } from './conversations/ask-in-conversation';
export { Conversation, ConversationListing, ConversationSummary, ConversationTurn, TurnState, TurnStep, UnreadableConversation } from '../shared/conversation';
export { SkippedEntry } from '../index/sources/secret-files';
