#!/usr/bin/env bash
# Build the standalone VeraMem into packaging/dist/veramem/ (one folder: run
# packaging/dist/veramem/veramem). Uses the project's .venv (made by `make` targets; created
# here if missing) and installs PyInstaller into it if it is not there yet.
#
#   bash packaging/build.sh            # or: make package
# Environment: VENV (the Python environment to build from), PACKAGE_DIST (output folder,
# default packaging/dist), PACKAGE_WORK (scratch folder, default packaging/build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
DIST="${PACKAGE_DIST:-$ROOT/packaging/dist}"
WORK="${PACKAGE_WORK:-$ROOT/packaging/build}"
# PyInstaller's cache goes with the scratch folder, so that builds do not share it.
export PYINSTALLER_CONFIG_DIR="${PYINSTALLER_CONFIG_DIR:-$WORK/pyinstaller-cache}"
PY="$VENV/bin/python"
PYINSTALLER_SPEC="pyinstaller>=6.10,<7"

cd "$ROOT"
if [ ! -x "$PY" ]; then
    echo "build: creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
    "$PY" -m pip install --quiet -e .
    "$PY" -m pip install --quiet --require-hashes --no-deps -r "$ROOT/requirements-nlp.txt"
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
    echo "build: installing PyInstaller into $VENV" >&2
    "$PY" -m pip install --quiet "$PYINSTALLER_SPEC"
fi

start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/veramem.spec"
echo "build: $DIST/veramem/veramem built in $(( $(date +%s) - start )) s" \
     "($(du -sh "$DIST/veramem" | cut -f1))" >&2
