/**
 * Reasoning that local reasoning models (Qwen3, DeepSeek-R1 distillations and other thinking models
 * served by Ollama, LM Studio, llama.cpp or vLLM without a reasoning parser) write inside `content`, as
 * `<think>…</think>` before the turn, instead of in `reasoning_content`. What is inside is reasoning: kept
 * for the trace like `reasoning_content`, never parsed for an Action (a drafted `Action:` in it is no
 * second action), never shown as the answer.
 *
 * Streaming-safe: a delta may end inside either tag, so a possible beginning of a tag is held back until
 * the next delta decides it. Only a `<think>` that opens the content (after white space) opens reasoning:
 * an answer that mentions the tag later is text. Templates that open the tag in the prompt (R1's) leave
 * only `</think>` in the output: such a closing tag, with no opening one, followed by a line of the
 * protocol (`Thought:` or `Action:`), ends reasoning too — known only when it arrives, so that reasoning
 * was already passed on as text while it streamed (a provisional view; the turn as parsed is split).
 */
const OPEN = '<think>';
const CLOSE = '</think>';
/** A protocol line after an unopened `</think>`: the turn proper starts there. */
const PROTOCOL_AFTER = /^\s*(?:[#>*_ \t]*)(?:thought|action)\s*[:：]/i;

/** The longest end of `text` that is a proper prefix of `tag`: what may be the start of the tag. */
function partialTag(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

export interface ThinkSplit {
  /** The turn without its reasoning: what the action parser reads. */
  content: string;
  /** The reasoning written inside the content (empty when there was none). */
  reasoning: string;
}

export class ThinkSplitter {
  private state: 'start' | 'thinking' | 'after' | 'content' = 'start';
  /** Text held back: leading white space, or a possible beginning of a tag. */
  private held = '';
  private opened = false;
  private reasoningText = '';
  private contentText = '';

  /** Takes one streamed piece of content; returns the part of it that is the turn's text (may be empty). */
  push(delta: string): string {
    let text = this.held + delta;
    this.held = '';
    for (;;) {
      if (this.state === 'start') {
        const lead = text.length - text.trimStart().length;
        const rest = text.slice(lead);
        if (rest.length === 0 || (rest.length < OPEN.length && OPEN.startsWith(rest))) {
          this.held = text;
          return '';
        }
        if (rest.startsWith(OPEN)) {
          this.state = 'thinking';
          this.opened = true;
          text = rest.slice(OPEN.length);
          continue;
        }
        this.state = 'content';
        continue;
      }
      if (this.state === 'thinking') {
        const at = text.indexOf(CLOSE);
        if (at < 0) {
          const keep = partialTag(text, CLOSE);
          this.reasoningText += text.slice(0, text.length - keep);
          this.held = text.slice(text.length - keep);
          return '';
        }
        this.reasoningText += text.slice(0, at);
        text = text.slice(at + CLOSE.length);
        this.state = 'after';
        continue;
      }
      if (this.state === 'after') {
        // The white space between the reasoning and the turn belongs to neither.
        const trimmed = text.trimStart();
        if (!trimmed) return '';
        text = trimmed;
        this.state = 'content';
        continue;
      }
      this.contentText += text;
      return text;
    }
  }

  /** The whole turn split, once the stream has ended. */
  finish(): ThinkSplit {
    if (this.state === 'thinking') this.reasoningText += this.held;
    else if (this.held) this.contentText += this.held;
    this.held = '';
    if (!this.opened) {
      // An unopened closing tag (the prompt opened it), with the turn after it.
      const at = this.contentText.indexOf(CLOSE);
      if (at >= 0 && PROTOCOL_AFTER.test(this.contentText.slice(at + CLOSE.length))) {
        return { reasoning: this.contentText.slice(0, at).trim(), content: this.contentText.slice(at + CLOSE.length).trimStart() };
      }
    }
    return { content: this.contentText, reasoning: this.reasoningText.trim() };
  }
}

/** A whole turn split at once (fixtures, a reply that did not stream). */
export function splitThinking(text: string): ThinkSplit {
  const s = new ThinkSplitter();
  s.push(text);
  return s.finish();
}
