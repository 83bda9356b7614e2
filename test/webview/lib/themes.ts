import type { Page } from 'playwright-core';

/**
 * The theme variables the chat view uses, with the values of VS Code's Default Light Modern, Dark
 * Modern and High Contrast themes; set as VS Code sets them (custom properties on <html>, a body class).
 */
export type ThemeName = 'light' | 'dark' | 'high-contrast';

const COMMON = { '--vscode-font-family': 'system-ui, sans-serif', '--vscode-font-size': '13px', '--vscode-editor-font-family': 'monospace' };

const THEMES: Record<ThemeName, { bodyClass: string; vars: Record<string, string> }> = {
  light: {
    bodyClass: 'vscode-light',
    vars: {
      '--vscode-foreground': '#3b3b3b', '--vscode-descriptionForeground': '#3b3b3b', '--vscode-sideBar-background': '#f8f8f8', '--vscode-editor-background': '#ffffff', '--vscode-editor-foreground': '#3b3b3b',
      '--vscode-button-background': '#005fb8', '--vscode-button-foreground': '#ffffff', '--vscode-button-hoverBackground': '#0258a8', '--vscode-button-secondaryBackground': '#e5e5e5', '--vscode-button-secondaryForeground': '#3b3b3b',
      '--vscode-input-background': '#ffffff', '--vscode-input-foreground': '#3b3b3b', '--vscode-input-border': '#cecece', '--vscode-input-placeholderForeground': '#767676', '--vscode-focusBorder': '#005fb8',
      '--vscode-textLink-foreground': '#005fb8', '--vscode-textLink-activeForeground': '#005fb8', '--vscode-badge-background': '#cccccc', '--vscode-badge-foreground': '#3b3b3b', '--vscode-panel-border': '#e5e5e5',
      '--vscode-textPreformat-foreground': '#3b3b3b', '--vscode-textPreformat-background': '#0000001f', '--vscode-textCodeBlock-background': '#f2f2f2', '--vscode-textBlockQuote-background': '#f8f8f8', '--vscode-textBlockQuote-border': '#e5e5e5',
      '--vscode-editorWarning-foreground': '#bf8803', '--vscode-errorForeground': '#f85149', '--vscode-editorInfo-foreground': '#1a85ff', '--vscode-testing-iconPassed': '#388a34', '--vscode-toolbar-hoverBackground': '#b8b8b850',
      '--vscode-editorHoverWidget-background': '#f8f8f8', '--vscode-editorHoverWidget-foreground': '#3b3b3b', '--vscode-editorHoverWidget-border': '#c8c8c8', '--vscode-dropdown-background': '#ffffff', '--vscode-dropdown-foreground': '#3b3b3b', '--vscode-dropdown-border': '#cecece',
      '--vscode-symbolIcon-keywordForeground': '#0000ff', '--vscode-symbolIcon-stringForeground': '#a31515', '--vscode-symbolIcon-numberForeground': '#098658', '--vscode-symbolIcon-functionForeground': '#795e26', '--vscode-symbolIcon-classForeground': '#267f99',
    },
  },
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      '--vscode-foreground': '#cccccc', '--vscode-descriptionForeground': '#9d9d9d', '--vscode-sideBar-background': '#181818', '--vscode-editor-background': '#1f1f1f', '--vscode-editor-foreground': '#cccccc',
      '--vscode-button-background': '#0078d4', '--vscode-button-foreground': '#ffffff', '--vscode-button-hoverBackground': '#026ec1', '--vscode-button-secondaryBackground': '#313131', '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-input-background': '#313131', '--vscode-input-foreground': '#cccccc', '--vscode-input-border': '#3c3c3c', '--vscode-input-placeholderForeground': '#989898', '--vscode-focusBorder': '#0078d4',
      '--vscode-textLink-foreground': '#4daafc', '--vscode-textLink-activeForeground': '#4daafc', '--vscode-badge-background': '#616161', '--vscode-badge-foreground': '#f8f8f8', '--vscode-panel-border': '#2b2b2b',
      '--vscode-textPreformat-foreground': '#d0d0d0', '--vscode-textPreformat-background': '#3c3c3c', '--vscode-textCodeBlock-background': '#2b2b2b', '--vscode-textBlockQuote-background': '#2b2b2b', '--vscode-textBlockQuote-border': '#616161',
      '--vscode-editorWarning-foreground': '#cca700', '--vscode-errorForeground': '#f85149', '--vscode-editorInfo-foreground': '#3794ff', '--vscode-testing-iconPassed': '#73c991', '--vscode-toolbar-hoverBackground': '#5a5d5e50',
      '--vscode-editorHoverWidget-background': '#202020', '--vscode-editorHoverWidget-foreground': '#cccccc', '--vscode-editorHoverWidget-border': '#454545', '--vscode-dropdown-background': '#313131', '--vscode-dropdown-foreground': '#cccccc', '--vscode-dropdown-border': '#3c3c3c',
      '--vscode-symbolIcon-keywordForeground': '#569cd6', '--vscode-symbolIcon-stringForeground': '#ce9178', '--vscode-symbolIcon-numberForeground': '#b5cea8', '--vscode-symbolIcon-functionForeground': '#dcdcaa', '--vscode-symbolIcon-classForeground': '#4ec9b0',
    },
  },
  'high-contrast': {
    bodyClass: 'vscode-high-contrast',
    vars: {
      '--vscode-foreground': '#ffffff', '--vscode-descriptionForeground': '#ffffffb3', '--vscode-sideBar-background': '#000000', '--vscode-editor-background': '#000000', '--vscode-editor-foreground': '#ffffff', '--vscode-contrastBorder': '#6fc3df',
      '--vscode-button-background': '#000000', '--vscode-button-foreground': '#ffffff', '--vscode-button-border': '#6fc3df', '--vscode-button-secondaryBackground': '#000000', '--vscode-button-secondaryForeground': '#ffffff',
      '--vscode-input-background': '#000000', '--vscode-input-foreground': '#ffffff', '--vscode-input-border': '#6fc3df', '--vscode-input-placeholderForeground': '#ffffffb3', '--vscode-focusBorder': '#f38518',
      '--vscode-textLink-foreground': '#21a6ff', '--vscode-textLink-activeForeground': '#21a6ff', '--vscode-badge-background': '#000000', '--vscode-badge-foreground': '#ffffff', '--vscode-panel-border': '#6fc3df',
      '--vscode-textPreformat-foreground': '#ffd700', '--vscode-textPreformat-background': '#000000', '--vscode-textCodeBlock-background': '#000000', '--vscode-textBlockQuote-background': '#000000', '--vscode-textBlockQuote-border': '#ffffff',
      '--vscode-editorWarning-foreground': '#ffd700', '--vscode-errorForeground': '#f48771', '--vscode-editorInfo-foreground': '#3794ff', '--vscode-testing-iconPassed': '#73c991',
      '--vscode-editorHoverWidget-background': '#0c141f', '--vscode-editorHoverWidget-foreground': '#ffffff', '--vscode-editorHoverWidget-border': '#6fc3df', '--vscode-dropdown-background': '#000000', '--vscode-dropdown-foreground': '#ffffff', '--vscode-dropdown-border': '#6fc3df',
      '--vscode-symbolIcon-keywordForeground': '#569cd6', '--vscode-symbolIcon-stringForeground': '#ce9178', '--vscode-symbolIcon-numberForeground': '#b5cea8', '--vscode-symbolIcon-functionForeground': '#dcdcaa', '--vscode-symbolIcon-classForeground': '#4ec9b0',
    },
  },
};

export async function applyTheme(page: Page, name: ThemeName): Promise<void> {
  const t = THEMES[name];
  const vars = { ...COMMON, ...t.vars };
  // CSSOM, as VS Code does it: allowed under style-src without 'unsafe-inline'.
  await page.evaluate(`(() => {
    for (const [k, v] of Object.entries(${JSON.stringify(vars)})) document.documentElement.style.setProperty(k, v);
    document.body.classList.remove('vscode-light', 'vscode-dark', 'vscode-high-contrast');
    document.body.classList.add(${JSON.stringify(t.bodyClass)});
  })()`);
}
