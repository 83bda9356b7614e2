import type { UiLang } from '../../src/shared/chat-protocol';
import { EN, type Strings } from './strings-en';
import { ZH } from './strings-zh';

export type { Strings };
export const STRINGS: Record<UiLang, Strings> = { en: EN, zh: ZH };
export const stringsFor = (lang: UiLang): Strings => STRINGS[lang];
