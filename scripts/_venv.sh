# Shared by scripts/tether and scripts/test: create .venv and (re)install when needed.
ensure_venv() {
  local root="$1" extras="$2"
  local venv="$root/.venv"
  local stamp="$venv/.installed${extras:+-dev}"
  if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv" >&2
  fi
  local want
  want="$(cat "$root/pyproject.toml" | sha256sum | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "tether: installing into $venv (first run or dependencies changed)..." >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root$extras" >&2
    echo "$want" >"$stamp"
  fi
}
