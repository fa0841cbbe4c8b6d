#!/usr/bin/env bash
# One command sets everything up on a fresh Debian machine and runs the main job:
#   system sources (WordNet 3.0, GCIDE) -> Python packages -> offline WordNet for NLTK ->
#   `probesmith build all` into artifacts/.
# Usage: bash setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")"

run_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
PYTHON=${PYTHON:-python3}

echo "== system packages: WordNet 3.0, GCIDE, parallel decompressors for Wikidata dumps, and the English"
echo "   text checker of templates (Hunspell en_US, the Link Grammar parser and its English dictionary)"
run_as_root apt-get update -qq
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    wordnet-base wordnet-sense-index dict-gcide pigz lbzip2 zstd \
    hunspell-en-us libhunspell-1.7-0 liblink-grammar5 link-grammar-dictionaries-en >/dev/null

echo "== Python packages (torch first, so its pinned wheel is the one used)"
"$PYTHON" -m pip install -q torch==2.13.0
"$PYTHON" -m pip install -q -e ".[dev]"

echo "== sources"
"$PYTHON" -m probesmith data prepare
"$PYTHON" -m probesmith data check

if [ "${1:-}" != "--no-build" ]; then
    echo "== main job: probesmith build all"
    "$PYTHON" -m probesmith build all --out artifacts
fi
