#!/usr/bin/env bash
# CI for the Claude Code plugin `subagents` (the repository root is the plugin root).
#
#   bash .ci/plugin.sh [VENV]      VENV defaults to .venv at the repository root
#
# 1. Installs the pinned Claude Code CLI from npm into .ci/node/ (never globally); the
#    end-to-end test in tests/plugin/ finds it there (.ci/node/node_modules/.bin/claude).
# 2. Runs `claude plugin validate --strict` with HOME in a temporary folder, on `.` (the
#    acceptance command; with .claude-plugin/marketplace.json present it checks the marketplace),
#    on the plugin manifest (which checks commands, skills, agents, hooks and bin/) and on the
#    marketplace manifest, and fails on any error or warning, the plugin-directory findings
#    included.
# The plugin's tests (tests/plugin/, the end-to-end `claude -p` run included) run with the main
# pytest run that follows in .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION=2.1.330
VENV=${1:-.venv}  # accepted for .ci/run's call; the validation needs no Python package
NODE_DIR=.ci/node
CLAUDE=$NODE_DIR/node_modules/.bin/claude

installed=$("$CLAUDE" --version 2>/dev/null || true)
if [[ $installed != "$CLAUDE_CODE_VERSION "* ]]; then
  echo "== npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION (into $NODE_DIR)"
  mkdir -p "$NODE_DIR"
  npm install --prefix "$NODE_DIR" --no-save --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null
fi
installed=$("$CLAUDE" --version)
[[ $installed == "$CLAUDE_CODE_VERSION "* ]] || {
  echo "CI: expected Claude Code $CLAUDE_CODE_VERSION, got: $installed" >&2
  exit 1
}
echo "Claude Code $installed"

tmp_home=$(mktemp -d)
trap 'rm -rf "$tmp_home"' EXIT
export HOME=$tmp_home DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
unset CLAUDE_CONFIG_DIR ANTHROPIC_API_KEY ANTHROPIC_BASE_URL

# Every finding of a JSON report: manifest and content errors and warnings, and the plugin
# directory's findings (README, icon, ...), which plain --strict reports but does not fail on.
findings() {
  python3 -c '
import json, sys
report = json.load(sys.stdin)
out = []
def walk(node, where):
    if isinstance(node, dict):
        for key in ("errors", "warnings"):
            for item in node.get(key) or []:
                out.append(f"{where}{key[:-1]}: {json.dumps(item)}")
        for key, value in node.items():
            if key not in ("errors", "warnings", "directory"):
                walk(value, f"{where}{key}.")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk(value, f"{where}{i}.")
walk({k: v for k, v in report.items() if k != "directory"}, "")
for f in (report.get("directory") or {}).get("findings") or []:
    out.append("directory " + " ".join(str(f.get(k)) for k in ("severity", "code", "message")))
if not report.get("success"):
    out.append("validation did not succeed")
print("\n".join(out))
'
}

status=0
for target in . .claude-plugin/plugin.json .claude-plugin/marketplace.json; do
  echo "== claude plugin validate --strict $target"
  if ! "$CLAUDE" plugin validate --strict "$target"; then
    echo "CI: claude plugin validate --strict $target failed" >&2
    status=1
  fi
  report=$("$CLAUDE" plugin validate --strict --json "$target" || true)
  problems=$(printf '%s' "$report" | findings)
  if [[ -n $problems ]]; then
    echo "CI: claude plugin validate --strict $target reported:" >&2
    echo "$problems" >&2
    status=1
  fi
done
exit "$status"
