import crypto from 'node:crypto';
import { stableJson } from '../common/stable-json';
import type { ToolPayload } from './tool';

/** A payload's identity for replay: same hash, same result, byte for byte. */
export function payloadHash(p: ToolPayload): string {
  return crypto.createHash('sha256').update(stableJson(p)).digest('hex');
}
