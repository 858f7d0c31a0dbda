#!/usr/bin/env bash
# One entry point for people and CI:
#   bash run.sh app    install (first time) and start the lab on http://localhost:8501 (this machine only)
#   bash run.sh test   install (first time) and run every test, browser smoke test included
# Installs into ./.venv from requirements.txt (re-installs when requirements.txt changes).
set -euo pipefail
cd "$(dirname "$0")"
VENV="${VENV:-.venv}"
PY="${PYTHON:-python3}"

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha"
  local want; want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing requirements into $VENV (first time takes a few minutes)…"
    # The machines' pip configuration names local wheel folders that may be absent: drop those warnings
    # (pipefail + set -e still stop the script if pip fails).
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -r requirements.txt 2>&1 \
      | { grep -v "is ignored: it is neither a file nor a directory" || true; }
    echo "$want" > "$stamp"
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "Installing Debian chromium for the browser tests…"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q chromium >/dev/null
  fi
}

ensure_caddy() {
  # the reverse proxy of deploy/Caddyfile, for its test (tests/house/test_security.py); optional elsewhere
  if ! command -v caddy >/dev/null; then
    echo "Installing Debian caddy for the reverse-proxy test…"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -q caddy >/dev/null 2>&1 \
      || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q caddy >/dev/null; }
  fi
}

ensure_postgresql() {
  # a throwaway PostgreSQL cluster for the records-database tests (tests/helpers/db_helpers.py); Debian keeps initdb and
  # pg_ctl in /usr/lib/postgresql/<version>/bin, off PATH, where the tests look too
  if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    echo "Installing Debian postgresql for the database tests…"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -q postgresql >/dev/null 2>&1 \
      || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q postgresql >/dev/null; }
  fi
}

case "${1:-}" in
  app)
    ensure_venv
    # Listen on this machine only unless an address is given (--server.address, or STREAMLIT_SERVER_ADDRESS):
    # to serve a class, pass e.g. --server.address 0.0.0.0 --server.port 8501 (see README, "Serving a class").
    addr=(--server.address 127.0.0.1)
    for a in "${@:2}"; do
      case "$a" in --server.address|--server.address=*) addr=() ;; esac
    done
    [ -n "${STREAMLIT_SERVER_ADDRESS:-}" ] && addr=()
    # serve.py: Streamlit running app.py, plus the line in each page's head that lets a deep link connect at once
    exec "$VENV/bin/python" -m streamlit run serve.py "${addr[@]}" "${@:2}"
    ;;
  test)
    ensure_venv
    ensure_chromium
    ensure_caddy
    ensure_postgresql
    exec "$VENV/bin/python" -m pytest "${@:2}"
    ;;
  *)
    echo "usage: bash run.sh app|test [extra args]" >&2
    exit 2
    ;;
esac
