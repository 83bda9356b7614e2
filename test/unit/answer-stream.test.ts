import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FinishStreamer } from '../../src/harness/answer-stream';

/** Feeds text in chunks of `size` characters and returns what was released. */
function stream(text: string, size: number): string {
  const s = new FinishStreamer();
  let out = '';
  for (let i = 0; i < text.length; i += size) out += s.push(text.slice(i, i + size));
  return out;
}

describe('FinishStreamer', () => {
  it('releases only the answer inside Finish[...], whatever the chunking, brackets inside included', () => {
    const turn = 'Thought: I know [this].\nAction: Finish[The cell [1] has a nucleus【来源:d1#b2】.]\n';
    for (const size of [1, 2, 3, 7, 1000]) assert.equal(stream(turn, size), 'The cell [1] has a nucleus【来源:d1#b2】.', `chunks of ${size}`);
  });

  it('a tool turn releases nothing', () => {
    assert.equal(stream('Thought: search.\nAction: search_blocks[{"input": {"query": "x"}}]', 4), '');
  });
});
