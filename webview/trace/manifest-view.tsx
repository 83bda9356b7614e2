import type { RunManifest } from '../../src/shared/trace-model';
import { t } from '../../src/shared/trace-strings';

/** Everything that decides what a run does (seed §5.1): readable versions, exact hashes. */
export function manifestFields(m: RunManifest): Array<[string, string]> {
  const b = m.budgets;
  return [
    ['app', `${m.app.name} ${m.app.version}`],
    ['build', m.app.build],
    ['prompt bundle', `${m.prompt_bundle.id} ${m.prompt_bundle.version} (${m.prompt_bundle.language})`],
    ['prompt hash', m.prompt_bundle.hash],
    ['prompt parent', m.prompt_bundle.parent ?? '-'],
    ['loop protocol', m.loop_protocol_version],
    ['tool contract', m.tool_contract_version],
    ['tools', m.tools.join(', ')],
    ['chat model', `${m.chat.model} @ ${m.chat.base_url} (thinking ${m.chat.thinking}, temperature ${m.chat.temperature}, max output ${m.chat.max_output_tokens})`],
    ['embedding', m.embedding.provider === 'none' ? 'keyword-only' : `${m.embedding.model ?? '?'} (${m.embedding.dimensions ?? '?'} dimensions)`],
    ['snapshot', `${m.snapshot.id} (${m.snapshot.completeness}${m.snapshot.failed_documents ? `, ${m.snapshot.failed_documents} failed documents` : ''})`],
    ['budgets', `context ${b.max_context_tokens} · request ${b.max_request_tokens} · reserve ${b.finalization_reserve_tokens} · tool calls ${b.max_tool_calls}`],
    ['thresholds', `no gain ${m.thresholds.no_gain} · violations ${m.thresholds.violations}`],
    ['config hash', m.config_hash],
  ];
}

export function ManifestView({ manifest }: { manifest: RunManifest }) {
  return (
    <details class="manifest" open data-testid="manifest">
      <summary>
        <h2>{t('Manifest')}</h2>
      </summary>
      <table>
        <tbody>
          {manifestFields(manifest).map(([k, v]) => (
            <tr key={k} data-field={k}>
              <th scope="row">{t(k)}</th>
              <td>
                <code>{v}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
