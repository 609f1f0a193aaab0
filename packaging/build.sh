#!/usr/bin/env bash
# Build the standalone VeraMem into packaging/dist/veramem/ (one folder: run
# packaging/dist/veramem/veramem). Uses the project's .venv (made by `make` targets; created
# here if missing) and installs PyInstaller into it if it is not there yet.
#
#   bash packaging/build.sh            # or: make package
#   VENV=/path/to/venv bash packaging/build.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
PYINSTALLER_SPEC="pyinstaller>=6.10,<7"

cd "$ROOT"
if [ ! -x "$PY" ]; then
    echo "build: creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
    "$PY" -m pip install --quiet -e .
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
    echo "build: installing PyInstaller into $VENV" >&2
    "$PY" -m pip install --quiet "$PYINSTALLER_SPEC"
fi

start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/packaging/dist" --workpath "$ROOT/packaging/build" \
    "$ROOT/packaging/veramem.spec"
echo "build: packaging/dist/veramem/veramem built in $(( $(date +%s) - start )) s" \
     "($(du -sh "$ROOT/packaging/dist/veramem" | cut -f1))" >&2
