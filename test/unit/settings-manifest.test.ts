import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { configurationContribution, restrictedConfigurations, settingNls } from '../../src/app/settings-table/manifest';
import { type Setting, setting } from '../../src/app/settings-table/setting';
import { SETTINGS } from '../../src/app/settings-table/table';
import { GENERATED_FILES, generate, generateNls, generatePackageJson } from '../../scripts/manifest-sections';

const ROOT = path.join(import.meta.dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the generated parts of package.json, the nls files and the docs', () => {
  for (const file of GENERATED_FILES) {
    it(`${file} equals what the settings table and the parser registry generate (run npm run gen:manifest)`, () => {
      const text = read(file);
      assert.equal(generate(file, text), text);
    });
  }

  it('fails on a hand edit of a generated part: a default, a scope, a description, the Restricted Mode list, a format clause', () => {
    const pkg = read('package.json');
    const edits: Array<[string, (p: { contributes: { configuration: { properties: Record<string, Record<string, unknown>> }; menus: Record<string, Array<{ command: string; when?: string }>> }; capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } }) => void]> = [
      ['a default', (p) => (p.contributes.configuration.properties['docqa.budgets.maxToolCalls']!.default = 9)],
      ['a scope', (p) => delete p.contributes.configuration.properties['docqa.chat.baseUrl']!.scope],
      ['a new setting', (p) => (p.contributes.configuration.properties['docqa.byHand'] = { type: 'string', default: '' })],
      ['the Restricted Mode list', (p) => p.capabilities.untrustedWorkspaces.restrictedConfigurations.pop()],
      ['a format clause', (p) => (p.contributes.menus['explorer/context']!.find((e) => e.command === 'docqa.inspectDocument')!.when = 'resourceExtname == .md')],
      ['a tool’s display name written in English', (p) => ((p as unknown as { contributes: { languageModelTools: Array<Record<string, unknown>> } }).contributes.languageModelTools[0]!.displayName = 'DocQA: List Documents')],
    ];
    for (const [what, edit] of edits) {
      const value = JSON.parse(pkg);
      edit(value);
      const edited = `${JSON.stringify(value, null, 2)}\n`;
      assert.notEqual(edited, pkg, what);
      assert.equal(generatePackageJson(edited), pkg, `${what}: the generator puts it back, so the check fails`);
    }
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    nls['config.trace.keep.description'] = 'edited by hand';
    nls['languageModelTool.docqa_scan_term.displayName'] = 'edited by hand';
    assert.equal(generateNls(`${JSON.stringify(nls, null, 2)}\n`, 'en'), read('package.nls.json'));
    const zh = JSON.parse(read('package.nls.zh-cn.json')) as Record<string, string>;
    delete zh['languageModelTool.docqa_list_blocks.userDescription'];
    assert.equal(generateNls(`${JSON.stringify(zh, null, 2)}\n`, 'zh'), read('package.nls.zh-cn.json'), 'a missing tool entry is written back where the others stand');
  });

  it('is idempotent and leaves every part it does not own as it was (commands, views, menus, other nls entries)', () => {
    for (const file of GENERATED_FILES) {
      const once = generate(file, read(file));
      assert.equal(generate(file, once), once, file);
    }
    const value = JSON.parse(read('package.json'));
    value.contributes.commands.push({ command: 'docqa.walkthroughStep', title: '%command.walkthroughStep.title%' });
    value.contributes.walkthroughs = [{ id: 'docqa.start', title: 'Start', steps: [] }];
    value.contributes.menus['explorer/context'].push({ command: 'docqa.walkthroughStep', when: 'resourceExtname == .jsonl' });
    const text = `${JSON.stringify(value, null, 2)}\n`;
    assert.equal(generatePackageJson(text), text);
    const nls = JSON.parse(read('package.nls.zh-cn.json')) as Record<string, string>;
    nls['command.walkthroughStep.title'] = '演练';
    const nlsText = `${JSON.stringify(nls, null, 2)}\n`;
    assert.equal(generateNls(nlsText, 'zh'), nlsText);
  });

  it('a new row is a new setting: its property, Restricted Mode entry and nls entries in both languages, after the others', () => {
    const row = setting({
      path: 'run.max_steps_example',
      schema: z.number().int().min(3).default(12),
      env: 'DOCQA_MAX_STEPS_EXAMPLE',
      vscode: { key: 'docqa.run.maxStepsExample' },
      description: { en: 'An example.', zh: '一个例子。' },
    });
    const rows: readonly Setting[] = [...SETTINGS, row];
    const properties = configurationContribution(rows).properties;
    assert.deepEqual(properties['docqa.run.maxStepsExample'], { type: 'integer', default: 12, minimum: 3, description: '%config.run.maxStepsExample.description%', order: Object.keys(properties).length });
    assert.equal(restrictedConfigurations(rows).at(-1), 'docqa.run.maxStepsExample');
    assert.equal(settingNls('en', rows)['config.run.maxStepsExample.description'], 'An example.');
    assert.equal(settingNls('zh', rows)['config.run.maxStepsExample.description'], '一个例子。');
  });
});
