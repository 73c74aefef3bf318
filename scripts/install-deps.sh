#!/usr/bin/env bash
# install-deps.sh installs what a bare machine lacks for the whole test
# suite: the Temporal CLI v1.9.1, which runs client commands and the dev
# server on Temporal Server 1.32 (built into .cache/bin; the first build
# takes a few minutes), bubblewrap for the command sandbox (the worker needs
# it too), Debian's chromium for the Web UI browser test and docker-compose
# to validate the compose file.
# Without root or apt-get it says what is missing and leaves it: those tests
# then skip outside CI.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-temporal.sh >/dev/null

# The MCP reference server the mcp package's tests run over stdio in the
# command sandbox, the TypeScript MCP SDK whose client drives planmode mcp
# and /mcp in the testsuite, and the MCP Inspector's CLI that lists
# planmode's tools there, pinned, installed into .cache/mcp (never
# globally) in one install: npm removes what an install does not name.
# Without npm the tests that need them skip and say so.
MCP_MEMORY_VERSION=2026.8.31
MCP_SDK_VERSION=1.32.2
MCP_INSPECTOR_CLI_VERSION=1.0.3
# pinned reports whether package $1 is installed in .cache/mcp at version $2.
pinned() {
  local pkg=".cache/mcp/node_modules/$1/package.json"
  [ -f "$pkg" ] && grep -q "\"version\": \"$2\"" "$pkg"
}
if command -v npm >/dev/null 2>&1; then
  if ! pinned @modelcontextprotocol/server-memory "$MCP_MEMORY_VERSION" ||
    ! pinned @modelcontextprotocol/sdk "$MCP_SDK_VERSION" ||
    ! pinned @modelcontextprotocol/inspector-cli "$MCP_INSPECTOR_CLI_VERSION"; then
    mkdir -p .cache/mcp
    npm install --prefix .cache/mcp --no-save --no-audit --no-fund --ignore-scripts \
      "@modelcontextprotocol/server-memory@$MCP_MEMORY_VERSION" \
      "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" \
      "@modelcontextprotocol/inspector-cli@$MCP_INSPECTOR_CLI_VERSION" >/dev/null
  fi
else
  echo "install-deps: npm is missing; the MCP reference server, TypeScript SDK and Inspector tests will skip" >&2
fi

# With "sandbox" it installs only bubblewrap, which isolates plans'
# commands: the demo and the tests need it, the rest only some tests.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ "${1:-}" != "sandbox" ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${missing[*]}; install them with your package manager" >&2
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
