# Shared by scripts/tether and scripts/test: system packages tether uses when present.
# Never fails the calling script: without them tether still runs, and says what is missing.

# bubblewrap runs Bash commands sandboxed. Installed when missing if this shell may: as root
# with apt-get, or through sudo without a password. Otherwise one line, once per checkout.
ensure_bubblewrap() {
  local root="$1"
  command -v bwrap >/dev/null 2>&1 && return 0
  [[ "$(uname -s)" == Linux ]] || return 0
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      sudo=(sudo -n)
    else
      sudo=(cannot)
    fi
  fi
  if command -v apt-get >/dev/null 2>&1 && [[ "${sudo[0]:-}" != cannot ]]; then
    echo "tether: installing bubblewrap (the Bash sandbox) with apt-get..." >&2
    if DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq bubblewrap \
      >/dev/null 2>&1 ||
      { "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq bubblewrap \
          >/dev/null 2>&1; }; then
      return 0
    fi
  fi
  local noted="$root/.venv/.bubblewrap-missing-noted"
  if [[ ! -f "$noted" ]]; then
    echo "tether: bubblewrap is not installed, so Bash commands cannot be sandboxed;" \
      "install it with \`sudo apt-get install bubblewrap\` (or your system's bubblewrap" \
      "package), then check with \`tether sandbox check\`." >&2
    touch "$noted" 2>/dev/null || true
  fi
  return 0
}

# The npm MCP servers the tests connect to, into .venv/node (where the tests look), when
# Node.js is there; pinned versions, installed again only when the list changes. Without
# Node.js their tests skip and say why.
NODE_MCP_SERVERS="@modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-everything@2026.8.31"
ensure_node_mcp_servers() {
  local root="$1"
  command -v npm >/dev/null 2>&1 || return 0
  local prefix="$root/.venv/node" stamp="$root/.venv/node/.installed"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$NODE_MCP_SERVERS" ]] && return 0
  echo "tether: installing the npm MCP servers the tests use..." >&2
  # shellcheck disable=SC2086
  if npm install --silent --no-audit --no-fund --save-exact --prefix "$prefix" $NODE_MCP_SERVERS >&2; then
    echo "$NODE_MCP_SERVERS" >"$stamp"
  else
    echo "tether: could not install the npm MCP servers; their tests will skip." >&2
  fi
  return 0
}

# The Claude Agent SDK for TypeScript, which a test drives with tether as its CLI, into
# .venv/node-agent-sdk. Its optional platform packages (a bundled Claude Code, ~230 MB) are left
# out: the test starts tether. Without Node.js the test skips and says why.
NODE_AGENT_SDK="@anthropic-ai/claude-agent-sdk@0.3.333"
ensure_node_agent_sdk() {
  local root="$1"
  command -v npm >/dev/null 2>&1 || return 0
  local prefix="$root/.venv/node-agent-sdk" stamp="$root/.venv/node-agent-sdk/.installed"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$NODE_AGENT_SDK" ]] && return 0
  echo "tether: installing the TypeScript Agent SDK the tests drive..." >&2
  # shellcheck disable=SC2086
  if npm install --silent --no-audit --no-fund --omit=optional --save-exact --prefix "$prefix" \
    $NODE_AGENT_SDK >&2; then
    echo "$NODE_AGENT_SDK" >"$stamp"
  else
    echo "tether: could not install the TypeScript Agent SDK; its test will skip." >&2
  fi
  return 0
}

# Debian's redis-server, for the Redis task store's tests (scripts/test starts one on
# loopback for the run). Installed when missing if this shell may, as bubblewrap is;
# otherwise those tests skip and say why.
ensure_redis_server() {
  command -v redis-server >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1 || return 0
    sudo=(sudo -n)
  fi
  echo "tether: installing redis-server (for the Redis task store's tests) with apt-get..." >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq redis-server \
    >/dev/null 2>&1 ||
    { "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq redis-server \
        >/dev/null 2>&1; } ||
    echo "tether: could not install redis-server; the Redis store's tests will skip." >&2
  return 0
}

# Debian's chromium, for the test that opens `tether eval`'s HTML report headless; without
# one (no apt-get, no root or sudo) that test skips, saying why.
ensure_chromium() {
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1 || return 0
    sudo=(sudo -n)
  fi
  echo "tether: installing chromium (for the eval report's rendering test) with apt-get..." >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium \
    >/dev/null 2>&1 ||
    { "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium \
        >/dev/null 2>&1; } ||
    echo "tether: could not install chromium; the eval report's rendering test will skip." >&2
  return 0
}

# Start a redis-server on 127.0.0.1 on a free port for this run and export its URL in
# TETHER_TEST_REDIS_URL; it is stopped (by its process id) when the calling script exits.
start_test_redis() {
  local python="$1"
  command -v redis-server >/dev/null 2>&1 || return 0
  local port dir
  port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  dir="$(mktemp -d)"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    >"$dir/log" 2>&1 &
  TEST_REDIS_PID=$!
  TEST_REDIS_DIR="$dir"
  trap 'kill "$TEST_REDIS_PID" 2>/dev/null; wait "$TEST_REDIS_PID" 2>/dev/null; rm -rf "$TEST_REDIS_DIR"' EXIT
  local tries=0
  until redis-cli -p "$port" ping >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [[ $tries -gt 200 ]] || ! kill -0 "$TEST_REDIS_PID" 2>/dev/null; then
      echo "tether: redis-server did not start: $(tail -3 "$dir/log")" >&2
      return 0
    fi
    sleep 0.05
  done
  export TETHER_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
  echo "== redis-server on 127.0.0.1:$port for the tests"
}
