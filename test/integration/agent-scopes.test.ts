import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import type { LoadedSnapshot } from '../../src/index/store/snapshot-store';
import { type AgentSetup, act, lastObservation, recordingTracer, snapshotOfFiles, useAgentSetup } from './agent-setup';

/**
 * The duplicate-scope key is exactly as strict as the tool (item 2), and section paths are unique with
 * descendants matched by whole segments (item 6): through the fake model server over real HTTP, each
 * test named after what broke.
 */
describe('scopes: what a tool call covers, and when two calls are one', () => {
  const setup = useAgentSetup();
  let t: AgentSetup;
  let notes: LoadedSnapshot;
  let docId: string;
  const nfd = 'Cafe\u0301 notes';
  before(async () => {
    notes = await snapshotOfFiles({
      'edges.md': `# X\n\n## > Y\n\nText under X's child.\n\n# X >\n\n## Y\n\nText under the sibling's child.\n\n# ${nfd}\n\nBeans are roasted.\n`,
    });
    docId = notes.documents[0]!.doc_id;
  });
  beforeEach(() => {
    t = setup();
    t.server.resetScript();
  });

  /** The harness_status (and error code) each request got, as the model saw them. */
  function recorder() {
    const seen: string[] = [];
    const note = (body: Record<string, unknown>) => {
      const o = lastObservation(body);
      seen.push(o.payload?.error ? `${o.harness_status}/${o.payload.error.code}` : o.harness_status);
    };
    return { seen, note };
  }

  it('a doc_id with a space failed scope_not_found and the corrected one was then rejected as a repeat: the corrected call runs', async () => {
    const { seen, note } = recorder();
    t.server.scriptChat(
      act('list_blocks', { doc_id: ` ${docId}` }),
      (body) => {
        note(body);
        return act('list_blocks', { doc_id: docId });
      },
      (body) => {
        note(body);
        return 'Thought: done.\nAction: Finish[Read.]';
      },
    );
    const r = await t.run('What do the notes say?', { snapshot: notes });
    assert.deepEqual(seen, ['ok/scope_not_found', 'ok']);
    assert.deepEqual([r.counts.tool_calls, r.counts.rejected_requests], [2, 0]);
  });

  it('a heading stored in NFD (notes written on macOS) could never be read once the NFC spelling was tried: the NFD spelling runs', async () => {
    const { seen, note } = recorder();
    const stored = notes.documents[0]!.sections.find((s) => s.title.normalize('NFC') === 'Café notes')!.path;
    assert.equal(stored, nfd, 'the heading is stored as written');
    t.server.scriptChat(
      act('list_blocks', { doc_id: docId, section_paths: ['Café notes'] }),
      (body) => {
        note(body);
        return act('list_blocks', { doc_id: docId, section_paths: [nfd] });
      },
      (body) => {
        note(body);
        assert.match(JSON.stringify(lastObservation(body).payload), /Beans are roasted/);
        return 'Thought: done.\nAction: Finish[Beans are roasted.]';
      },
    );
    await t.run('What about coffee?', { snapshot: notes });
    assert.deepEqual(seen, ['ok/scope_not_found', 'ok']);
  });

  it('section_paths absent and [] were two scopes, so a whole document could enter the context twice: the second is a repeat', async () => {
    const { seen, note } = recorder();
    t.server.scriptChat(
      act('list_blocks', { doc_id: docId }),
      (body) => {
        note(body);
        return act('list_blocks', { doc_id: docId, section_paths: [] }, { id: 'call-1', gain: 'GAINED' });
      },
      (body) => {
        note(body);
        return 'Thought: done.\nAction: Finish[Read.]';
      },
    );
    const rec = recordingTracer();
    const r = await t.run('What do the notes say?', { snapshot: notes, tracer: rec.tracer });
    assert.deepEqual(seen, ['ok', 'protocol_error']);
    assert.equal(r.counts.tool_calls, 1);
    assert.deepEqual(rec.spans('rejected_request').map((s) => s.attributes.reason), ['duplicate_scope']);
  });

  it('a scan_term term differing only in case ran twice: it is the same scan', async () => {
    const { seen, note } = recorder();
    t.server.scriptChat(
      act('scan_term', { term: 'Beans' }),
      (body) => {
        note(body);
        return act('scan_term', { term: 'beans' }, { id: 'call-1', gain: 'GAINED' });
      },
      (body) => {
        note(body);
        return 'Thought: done.\nAction: Finish[Beans are roasted.]';
      },
    );
    const r = await t.run('Are beans mentioned?', { snapshot: notes });
    assert.deepEqual(seen, ['ok', 'protocol_error']);
    assert.equal(r.counts.tool_calls, 1);
  });

  it('a heading ending with the separator (`# X >`) made a path two sections shared, and list_blocks ["X"] returned its sibling’s blocks: paths are unique and a section holds only its own subtree', async () => {
    let outline: Array<{ path: string; title: string }> = [];
    let listed: Array<{ section_path: string; text: string }> = [];
    t.server.scriptChat(
      act('get_outline', { doc_ids: [docId] }),
      (body) => {
        outline = (lastObservation(body).payload as unknown as { documents: Array<{ sections: typeof outline }> }).documents[0]!.sections;
        return act('list_blocks', { doc_id: docId, section_paths: ['X'] }, { id: 'call-1', gain: 'GAINED' });
      },
      (body) => {
        listed = (lastObservation(body).payload as unknown as { blocks: typeof listed }).blocks;
        return 'Thought: done.\nAction: Finish[Read.]';
      },
    );
    await t.run('What is under X?', { snapshot: notes });
    const paths = outline.map((s) => s.path);
    assert.deepEqual(paths, ['X', 'X > › Y', 'X ›', 'X › > Y', nfd]);
    assert.deepEqual(outline.map((s) => s.title), ['X', '> Y', 'X >', 'Y', nfd], 'titles as written');
    assert.deepEqual(listed.map((b) => [b.section_path, b.text]), [['X > › Y', "Text under X's child."]]);
  });
});
