import { DEFAULT_RETRY_POLICY, decideRetry, retryAfterWords, sleep } from '../common/retry-policy';
import { countTokens } from '../common/tokenizer';
import type { Span } from '../trace/tracer';
import { FinishStreamer } from './answer-stream';
import type { RetryRoom } from './budget';
import type { Loop } from './loop-context';
import { ChatError, type ChatMessage, type ChatResult } from './model-client';

export type ModelOutcome =
  | { kind: 'reply'; reply: ChatResult }
  /** The call failed for good: after its retry, or at once when not retryable or when the budget cannot pay a retry (`retry_refused`: why, in words). */
  | { kind: 'failed'; error: ChatError; attempts: number; retry_refused: string | null };

/** The error as finally reported when the service asked to wait longer than the policy allows. */
function refusedWait(err: ChatError, limit: number): ChatError {
  const asked = err.retryAfterMs!;
  const failure = err.failure ? { ...err.failure, retry_after_refused: { asked_ms: asked, limit_ms: limit } } : null;
  return new ChatError(err.kind, `${err.message}; ${retryAfterWords(asked, limit)}`, err.retryable, err.status, failure, err.streamed, asked);
}

/**
 * One model call of a turn, retried by the retry policy (once, for a transient failure, after the
 * service's Retry-After or the policy's pause; a Retry-After beyond its limit ends the call). Every
 * attempt is an llm_call span and pays its tokens into the run (the provider's usage; else our count
 * of the prompt and of what streamed before a cut — an attempt refused before any answer began costs
 * nothing). A retry is made only while the budget still allows the call (`room` is asked again with
 * the tokens spent: the final round's retry too), and it is capped like the first attempt. Cancellation (during the pause
 * too) and defects (anything but a ChatError) escape.
 */
export async function callModel(loop: Loop, turn: Span, messages: readonly ChatMessage[], contextTokens: number, room: () => RetryRoom, firstCap: number): Promise<ModelOutcome> {
  const { state, tracer, o } = loop;
  const policy = o.model.retryPolicy ?? DEFAULT_RETRY_POLICY;
  let cap = firstCap;
  for (let attempt = 1; ; attempt++) {
    state.counts.model_calls++;
    const call = tracer.start('llm_call', attempt === 1 ? 'llm_call' : 'llm_call (retry)', turn, { attempt, messages: messages.length, context_tokens_estimate: contextTokens, max_output_tokens: cap });
    call.artifact('prompt', () => JSON.stringify(messages));
    const answerStream = new FinishStreamer();
    const turnNo = state.counts.agent_turns;
    try {
      const reply = await o.model.complete(messages, {
        signal: o.signal,
        maxOutputTokens: cap,
        onDelta: (text) => {
          loop.emit({ type: 'model_delta', turn: turnNo, text });
          const answer = answerStream.push(text);
          if (answer) loop.emit({ type: 'answer_delta', turn: turnNo, text: answer });
        },
      });
      const u = reply.usage;
      // Without usage, the reasoning is counted too: the model wrote (and the service bills) it.
      state.spend(u?.prompt_tokens ?? contextTokens, u?.completion_tokens ?? countTokens(reply.content + reply.reasoning), !u);
      call.artifact('model_output', reply.content);
      if (reply.reasoning) call.artifact('reasoning', reply.reasoning);
      call.end('ok', {
        finish_reason: reply.finish_reason,
        prompt_tokens: u?.prompt_tokens ?? null,
        completion_tokens: u?.completion_tokens ?? null,
        prompt_cache_hit_tokens: u?.prompt_cache_hit_tokens ?? null,
        prompt_cache_miss_tokens: u?.prompt_cache_miss_tokens ?? null,
        usage_estimated: !u,
        used_request_tokens: state.used,
      });
      loop.ledger();
      return { kind: 'reply', reply };
    } catch (err) {
      if (o.signal?.aborted) {
        call.end('cancelled');
        throw err;
      }
      if (!(err instanceof ChatError)) {
        call.end('error', { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
      // A stream that began and broke off was paid for: its prompt and what arrived.
      const paid = err.streamed ? { prompt: contextTokens, completion: countTokens(err.streamed.content + err.streamed.reasoning) } : { prompt: 0, completion: 0 };
      if (err.streamed) state.spend(paid.prompt, paid.completion, true);
      call.end('error', { error_kind: err.kind, error: err.message, status: err.status, attempt_tokens_estimate: paid.prompt + paid.completion, used_request_tokens: state.used });
      loop.ledger();
      const d = decideRetry(err.retryable, attempt, err.retryAfterMs, policy);
      if (d.kind === 'give_up') return { kind: 'failed', error: d.why === 'retry_after_too_long' ? refusedWait(err, policy.max_retry_after_ms) : err, attempts: attempt, retry_refused: null };
      const next = room();
      if (next.kind === 'refused') {
        tracer.start('budget_decision', 'retry refused', turn, { check: 'before_retry', decision: 'stop', reason: next.reason, detail: next.words, used_request_tokens: state.used }).end('error');
        return { kind: 'failed', error: err, attempts: attempt, retry_refused: next.words };
      }
      cap = next.max_output_tokens;
      state.retries++;
      tracer.start('retry', 'retry llm_call', turn, { of: 'llm_call', attempt: attempt + 1, after_error: err.kind, delay_ms: d.delay_ms, retry_after_ms: err.retryAfterMs }).end();
      await sleep(d.delay_ms, o.signal);
    }
  }
}
