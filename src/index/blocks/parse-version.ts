/**
 * The version of how documents are cut into sections and blocks, recorded in every snapshot manifest
 * (`parse_version`; a manifest without it is 1). A build takes over its parent's parse results (and its
 * segments) only when they were cut the same way; otherwise it parses every document again and says why
 * in the manifest (`reparse_reason`). The embedding cache is keyed by block text, so only the blocks
 * whose text changed are embedded again.
 *
 * 2: a title's `>` is written `›` in section paths, so paths are unique and split into their segments
 *    (section-path.ts); a link list is a block of its own (link-list.ts).
 */
export const PARSE_VERSION = 2;

/** Why a snapshot of this parse version cannot lend its parse results to a build, or null when it can. */
export function reparseReason(parentVersion: number): string | null {
  if (parentVersion === PARSE_VERSION) return null;
  return parentVersion < PARSE_VERSION
    ? `the parent snapshot's documents were cut into sections and blocks by an older DocQA (parse version ${parentVersion}, now ${PARSE_VERSION}: unique section paths, link lists as blocks of their own); every document is parsed again`
    : `the parent snapshot was built by a newer DocQA (parse version ${parentVersion}, this one reads ${PARSE_VERSION}); every document is parsed again`;
}
