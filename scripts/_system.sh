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
