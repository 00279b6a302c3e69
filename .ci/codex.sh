#!/usr/bin/env bash
# CI for Codex reviews (issue 37): installs the pinned Codex CLI from npm into .ci/node/ (never
# globally), next to Claude Code (.ci/plugin.sh); tests/plugin/codex_cli.py finds it there
# (.ci/node/node_modules/.bin/codex). When the npm registry cannot be reached, it leaves
# .ci/node/codex-unreachable and the end-to-end tests skip with that reason; any other failure
# fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."

CODEX_VERSION=0.171.0
CLAUDE_CODE_VERSION=$(sed -n 's/^CLAUDE_CODE_VERSION=//p' .ci/plugin.sh)
NODE_DIR=.ci/node
CODEX=$NODE_DIR/node_modules/.bin/codex
MARK=$NODE_DIR/codex-unreachable

installed=$("$CODEX" --version 2>/dev/null || true)
if [[ $installed != "codex-cli $CODEX_VERSION" ]]; then
  mkdir -p "$NODE_DIR"
  rm -f "$MARK"
  if ! npm ping --loglevel=error >/dev/null 2>&1; then
    echo "CI: the npm registry cannot be reached; the Codex end-to-end tests will skip" >&2
    touch "$MARK"
    exit 0
  fi
  echo "== npm install @openai/codex@$CODEX_VERSION (into $NODE_DIR)"
  # one install with Claude Code's pin: npm removes packages a later --no-save install omits
  npm install --prefix "$NODE_DIR" --no-save --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" >/dev/null
fi
installed=$("$CODEX" --version)
[[ $installed == "codex-cli $CODEX_VERSION" ]] || {
  echo "CI: expected Codex $CODEX_VERSION, got: $installed" >&2
  exit 1
}
echo "Codex $installed"
