#!/usr/bin/env bash
# Smoke test of the standalone build: runs the BUILT program (not the venv's) through a
# whole life cycle in a temporary home, then its bundled self-check.
#
#   bash packaging/smoke_test.sh [path/to/veramem]     # or: make package-test
#
# --version; init; add; search --json finds the new memory; verify; the REST server
# serves its web page and finds the memory over HTTP; forget ID --yes; search no longer
# finds it; verify again; `mcp --print-config` names this executable; veramem-selfcheck.
# Exits non-zero at the first failure, saying which step failed and why.
# Needs python3 (to read the JSON outputs) and curl.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(realpath -m "${1:-$ROOT/packaging/dist/veramem/veramem}")"
SELFCHECK="$(dirname "$BIN")/veramem-selfcheck"

if [ ! -x "$BIN" ]; then
    echo "smoke: FAIL: no built program at $BIN; run 'make package' (or bash packaging/build.sh) first" >&2
    exit 2
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/veramem-smoke.XXXXXX")"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Everything the program writes stays in $WORK: its home, and HOME/XDG folders in case
# anything looks there. No OS keyring: the passphrase comes from the environment.
export VERAMEM_HOME="$WORK/veramem-home"
export VERAMEM_PASSPHRASE="smoke test passphrase 42"
export VERAMEM_NO_KEYRING=1
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
export XDG_CACHE_HOME="$WORK/home/.cache" XDG_STATE_HOME="$WORK/home/.local/state"
mkdir -p "$HOME"

OUT="$WORK/out" ERR="$WORK/err"
fail() {
    echo "smoke: FAIL at '$STEP': $*" >&2
    if [ -s "$OUT" ]; then echo "--- stdout" >&2; head -c 4000 "$OUT" >&2; echo >&2; fi
    if [ -s "$ERR" ]; then echo "--- stderr" >&2; tail -c 4000 "$ERR" >&2; echo >&2; fi
    exit 1
}
# run STEP-NAME ARGS...: the built program with ARGS; stdout to $OUT, stderr to $ERR.
run() {
    STEP="$1"; shift
    local start=$SECONDS
    "$BIN" "$@" >"$OUT" 2>"$ERR"
    local rc=$?
    [ $rc -eq 0 ] || fail "veramem $* exited with $rc"
    echo "smoke: ok   $STEP ($(( SECONDS - start )) s)"
}
# json EXPRESSION: evaluates a Python expression over the JSON on $OUT (bound to `d`) and
# prints the result; exits non-zero if the output is not JSON or the expression raises.
json() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); v = eval(sys.argv[2]); print(v if not isinstance(v, bool) else int(v))' \
        "$OUT" "$1" 2>>"$ERR"
}

# 1. --version
run "--version" --version
grep -Eq '^veramem, version [0-9]' "$OUT" || fail "unexpected version line: $(cat "$OUT")"

# 2. init, in the temporary home, with the passphrase from the environment
run "init" init --json
[ -f "$(json 'd["store"]')" ] || fail "init did not create the store file"

# 3. add: a message, from which a memory is derived
run "add" add "My sister Priya lives in Lisbon and goes sailing every weekend." --json
MEMORY_ID="$(json 'd["added"][0]["id"]')" || fail "add derived no memory"
echo "smoke:      added $MEMORY_ID"

# 4. search --json finds it
run "search finds the memory" search "Where does Priya live?" --json
[ "$(json "any(r['id'] == '$MEMORY_ID' for r in d['results'])")" = 1 ] || fail "$MEMORY_ID not in the results"

# 5. verify: the ledger checks out
run "verify" verify --json
[ "$(json 'd["ok"]')" = 1 ] || fail "verify reported a problem"

# 6. the REST server: the web page and an authorised search, on a free loopback port
STEP="serve"
TOKEN="$("$BIN" serve --show-token 2>"$ERR")" || fail "serve --show-token failed"
"$BIN" serve --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do  # the first stdout line is the address, printed once the socket listens
    URL="$(head -n 1 "$WORK/serve.out" 2>/dev/null)"
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cp "$WORK/serve.err" "$ERR"; fail "the server exited before listening"; }
    sleep 0.1
done
[ -n "$URL" ] || { cp "$WORK/serve.err" "$ERR"; fail "the server printed no address within 30 s"; }
curl -fsS --max-time 30 "$URL" >"$OUT" 2>"$ERR" || fail "GET $URL failed"
grep -qi '<html' "$OUT" || fail "GET $URL did not return the web page"
curl -fsS --max-time 60 -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"query": "Where does Priya live?"}' "${URL}v1/search" >"$OUT" 2>"$ERR" || fail "POST /v1/search failed"
[ "$(json "any(r['id'] == '$MEMORY_ID' for r in d['results'])")" = 1 ] || fail "$MEMORY_ID not found over HTTP"
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
echo "smoke: ok   serve (web page and /v1/search at $URL)"

# 7. forget, without a prompt
run "forget" forget "$MEMORY_ID" --yes --json
[ "$(json 'd["report"]["erased_memories"]')" -ge 1 ] || fail "forget erased nothing"

# 8. search no longer finds it, nor the message it came from
run "search after forget" search "Where does Priya live?" --json
[ "$(json "any(r['id'] == '$MEMORY_ID' or 'Lisbon' in r['text'] for r in d['results'])")" = 0 ] \
    || fail "the forgotten memory is still found"

# 9. verify again: the erasure left a valid ledger
run "verify after forget" verify --json
[ "$(json 'd["ok"]')" = 1 ] || fail "verify reported a problem after forget"

# 10. the MCP client config names this standalone executable
run "mcp --print-config" mcp --print-config claude
[ "$(json 'd["mcpServers"]["veramem"]["command"]')" = "$BIN" ] || fail "the MCP config does not name $BIN"

# 11. every bundled runtime file and native library, loaded inside the build
STEP="selfcheck"
[ -x "$SELFCHECK" ] || fail "no $SELFCHECK beside the program"
"$SELFCHECK" >"$OUT" 2>"$ERR"
rc=$?
sed 's/^/smoke:      /' "$OUT"
[ $rc -eq 0 ] || fail "veramem-selfcheck exited with $rc"
echo "smoke: ok   selfcheck"

echo "smoke: PASS ($BIN)"
