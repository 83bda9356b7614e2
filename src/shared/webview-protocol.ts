import { z } from 'zod';
import { Document } from './document';
import { FailedDocument } from './failed-document';

/**
 * Every message between the extension host and a webview, as one discriminated union per direction.
 * Both sides validate on arrival; nothing is posted to the webview before it says `ready`.
 */
export const HostToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inspect-result'), path: z.string(), document: Document }),
  z.object({ type: z.literal('inspect-failure'), failure: FailedDocument }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

export const WebviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('open-block'), block_index: z.number().int().min(0) }),
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;
