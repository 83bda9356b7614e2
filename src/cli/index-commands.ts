import path from 'node:path';
import { shown as printable } from './format';
import type { Command } from 'commander';
import { egressSummary, localEgressSummary } from '../app/egress-words';
import { DocQaError, UsageError } from '../common/errors';
import type { EgressPlan } from '../index/store/egress-consent';
import type { CommandContext } from './command-context';

export function registerIndexCommands(program: Command, { io, json, app }: CommandContext): void {
  program
    .command('index')
    .description('build a snapshot from the sources and activate it when usable')
    .option('--json', 'print JSON')
    .option('--yes', 'agree to send new sources to the embedding host without asking')
    .action(async (o: { json?: boolean; yes?: boolean }) => {
      let shown = '';
      let unasked: EgressPlan | null = null;
      const confirmEgress = async (plan: EgressPlan): Promise<boolean> => {
        if (o.yes) return true;
        if (!io.confirm) {
          unasked = plan;
          return false;
        }
        if (shown) io.stderr('\r\x1b[K');
        io.stderr(`${egressSummary(plan).join('\n')}\n`);
        return io.confirm('Send them?');
      };
      const a = app(['ingest', 'embedding', 'retention']);
      const job = await a.startBuild({
        onEvent: (e) => {
          // Another embedding model than the active snapshot's re-embeds everything: the build's first word.
          if (e.type === 'embedding_rebuild' || e.type === 'ocr_on') io.stderr(`docqa: ${e.message}\n`);
          if (e.type === 'egress_local') {
            if (shown) io.stderr('\r\x1b[K');
            io.stderr(`docqa: ${localEgressSummary(e)}\n`);
            shown = '';
          }
          if (e.type !== 'build_progress' || !io.interactive) return;
          const ocr = e.status.ocr;
          const line = `${e.status.phase} ${e.status.done}/${e.status.total}${ocr ? ` (OCR ${printable(path.basename(ocr.path))}: page ${ocr.page}, ${ocr.index} of ${ocr.count} scanned)` : ''}`;
          if (line !== shown) io.stderr(`\r\x1b[K${(shown = line)}`);
        },
        confirmEgress,
      });
      const r = await job.done.catch((err: unknown) => {
        if (unasked && err instanceof DocQaError && err.code === 'egress_declined') {
          throw new UsageError(`${egressSummary(unasked).join('\n')}\nNothing was sent. Run \`docqa index --yes\` to agree, or set DOCQA_EMBEDDING_PROVIDER=none for keyword-only search.`);
        }
        throw err;
      });
      if (shown) io.stderr('\r\x1b[K');
      if (!r) throw new DocQaError('build_cancelled', 'the build was cancelled; the previous snapshot stays active');
      const { manifest: m, activated } = r;
      const summary = {
        snapshot_id: m.id,
        state: m.state,
        activated,
        parent: m.parent,
        documents: m.stats.documents,
        blocks: m.stats.blocks,
        failed_documents: m.failed_documents,
        embedding: m.embedding,
        embedding_tokens: m.stats.embedding_tokens,
        embedded_blocks: m.stats.embedded_blocks,
        cached_embeddings: m.stats.cached_embeddings,
        reused_documents: m.stats.reused_documents,
        reparse_reason: m.reparse_reason,
        segments: m.segments.length,
        durations_ms: m.stats.durations_ms,
        error: m.error,
      };
      if (o.json) json(summary);
      else {
        io.stdout(`snapshot ${m.id}: ${m.state}${activated ? ' (active)' : ' (not activated)'}\n`);
        io.stdout(`  ${m.stats.documents} documents (${m.stats.reused_documents} unchanged), ${m.stats.blocks} blocks in ${m.segments.length} segment${m.segments.length === 1 ? '' : 's'}, ${m.failed_documents.length} failed\n`);
        if (m.reparse_reason) io.stdout(`  parsed again: ${m.reparse_reason}\n`);
        io.stdout(m.embedding.provider === 'none' ? '  keyword-only: no embeddings (DOCQA_EMBEDDING_PROVIDER=none)\n' : `  embeddings: ${m.embedding.model} (${m.embedding.dimensions} dims), ${m.stats.embedded_blocks} embedded, ${m.stats.cached_embeddings} from cache, ${m.stats.embedding_tokens} tokens\n`);
        for (const f of m.failed_documents) io.stdout(`  ${f.pages ? 'PARTIAL' : 'FAILED'} ${printable(f.path)}: ${f.stage}/${f.code} — ${f.message}\n`);
        const d = m.stats.durations_ms;
        io.stdout(`  ingest ${d.ingest} ms, embed ${d.embed} ms, index ${d.index} ms, write ${d.write} ms\n`);
      }
      if (!activated) {
        const why = m.state === 'failed' ? `failed: ${m.error ?? 'not usable'}` : `is ${m.state} but the embedding endpoint failed for ${m.failed_documents.filter((f) => f.stage === 'embed').length} document(s) (activate it with \`docqa snapshots activate ${m.id}\` to use it anyway)`;
        throw new DocQaError('build_failed', `snapshot ${m.id} ${why}; the previous snapshot stays active`);
      }
    });

  const snapshots = program
    .command('snapshots')
    .description('list snapshots (newest first); activate or delete one')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const a = app();
      const [list, active] = await Promise.all([a.listSnapshots(), a.activeSnapshotId()]);
      const rows = list.map((m) => ({ id: m.id, state: m.state, active: m.id === active, created_at: m.created_at, parent: m.parent, documents: m.stats.documents, blocks: m.stats.blocks, segments: m.segments.length, failed_documents: m.stats.failed_documents, embedding: m.embedding }));
      if (o.json) return json(rows);
      if (rows.length === 0) return io.stdout('no snapshots; build one with `docqa index`\n');
      for (const r of rows) io.stdout(`${r.active ? '*' : ' '} ${r.id}  ${r.state.padEnd(13)} ${r.created_at}  ${r.documents} docs, ${r.blocks} blocks, ${r.failed_documents} failed  ${r.embedding.provider === 'none' ? 'keyword-only' : r.embedding.model}\n`);
    });
  snapshots
    .command('activate')
    .description('make a snapshot the active one (rollback)')
    .argument('<id>')
    .action(async (id: string) => {
      const m = await app().activateSnapshot(id);
      io.stdout(`active: ${m.id} (${m.state})\n`);
    });
  snapshots
    .command('delete')
    .description('delete a snapshot that is not active')
    .argument('<id>')
    .action(async (id: string) => {
      await app().deleteSnapshot(id);
      io.stdout(`deleted: ${id}\n`);
    });
}
