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
  # An install with the dev extras holds the plain one: `scripts/tether` after `scripts/test`
  # starts at once (it reinstalled, into a venv the tests may be running from).
  if [[ -z "$extras" && -f "$venv/.installed-dev" && "$(cat "$venv/.installed-dev")" == "$want" ]]; then
    stamp="$venv/.installed-dev"
  fi
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "tether: installing into $venv (first run or dependencies changed)..." >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root$extras" >&2
    echo "$want" >"$stamp"
  fi
  # An editable install has no bytecode, and with PYTHONDONTWRITEBYTECODE set nothing ever
  # writes it: every start would compile each of tether's modules again (several hundred ms).
  # Compiled once, as a wheel's install does (a module edited later is compiled on its own).
  if [[ ! -d "$root/src/tether/__pycache__" ]]; then
    "$venv/bin/python" -m compileall -q "$root/src/tether" >/dev/null
  fi
}
