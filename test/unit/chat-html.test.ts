import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatCsp, chatHtml } from '../../src/shared/chat-html';

const page = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net', nonce: 'abcdefghijklmnop0123', scriptUri: 'https://x/dist/chat.js', styleUri: 'https://x/dist/chat.css', codiconUri: 'https://x/dist/codicon.css' };

describe('chat page and CSP', () => {
  it('is exactly the CSP of issue 21', () => {
    assert.equal(chatCsp('vscode-webview://src', 'N0nce'), "default-src 'none'; script-src 'nonce-N0nce'; style-src vscode-webview://src; font-src vscode-webview://src; img-src vscode-webview://src data:");
  });

  it('has one script, carrying the nonce, and nothing inline', () => {
    const html = chatHtml(page);
    assert.ok(html.includes(`content="${chatCsp(page.cspSource, page.nonce)}"`));
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="abcdefghijklmnop0123" src="https:\/\/x\/dist\/chat.js"><\/script>/);
    assert.doesNotMatch(html, /<style|style=|\son[a-z]+=/i);
    assert.doesNotMatch(chatCsp(page.cspSource, page.nonce), /unsafe/);
  });

  it('refuses a weak nonce and escapes the URIs', () => {
    assert.throws(() => chatHtml({ ...page, nonce: 'short' }));
    assert.match(chatHtml({ ...page, styleUri: 'https://x/"><script>' }), /href="https:\/\/x\/&quot;>&lt;script>"/);
  });
});
