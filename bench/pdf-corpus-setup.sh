#!/usr/bin/env bash
# Set-up of `npm run bench pdf-corpus`: Debian's poppler-utils (pdftotext, the comparison) when missing,
# and the PDFs of mozilla/pdf.js's test/pdfs at commit 0f26334 copied from a clone of pdf.js (its git
# directory or work tree; nothing is downloaded) into .corpus/pdfjs-0f26334/, which git ignores.
# Usage: bash bench/pdf-corpus-setup.sh PATH-TO-PDF.JS-CLONE. Idempotent; installing needs root (apt-get).
set -euo pipefail
COMMIT=0f26334f9d6f96119f6e5164fb65832fbbde7344
repo="${1:?usage: bash bench/pdf-corpus-setup.sh PATH-TO-A-CLONE-OF-mozilla/pdf.js (containing commit 0f26334)}"
out="$(cd "$(dirname "$0")/.." && pwd)/.corpus/pdfjs-0f26334"
if ! command -v pdftotext >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "pdf-corpus setup: pdftotext is missing and installing it needs root: sudo apt-get install -y poppler-utils" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null
fi
{ pdftotext -v 2>&1 || true; } | head -1
git -C "$repo" cat-file -e "$COMMIT^{commit}" || { echo "pdf-corpus setup: $repo does not hold commit $COMMIT" >&2; exit 1; }
mkdir -p "$out"
n=0
missing=0
while read -r _mode _type blob file; do
  case "$file" in *.pdf) ;; *) continue ;; esac
  name="$(basename "$file")"
  if git -C "$repo" cat-file blob "$blob" >"$out/$name.tmp" 2>/dev/null; then
    mv "$out/$name.tmp" "$out/$name"
    n=$((n + 1))
  else
    rm -f "$out/$name.tmp"
    missing=$((missing + 1))
  fi
done < <(git -C "$repo" ls-tree "$COMMIT" test/pdfs/)
echo "pdf-corpus setup: $n PDFs in $out ($missing not in this clone)"
