#!/usr/bin/env bash
# schemathesis.sh: property-based tests of the whole API from its OpenAPI
# document. It installs the pinned schemathesis into a cached venv, builds and
# starts the local gateway (make run) on a temporary data directory and a free
# port with a known secret key and client key, seeds an order, a checkout
# session and a payment waiting for 3-D Secure, runs every check against the
# served /openapi.json, and stops the gateway on exit, also on failure.
# Known failures, each with its reason, are listed in schemathesis/hooks.py.
# Any other failure fails the script (and make test). `schemathesis.sh
# install` only installs; other arguments go to `schemathesis run`.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=pyvenv.sh
source "$REPO/infra/scripts/pyvenv.sh"
HERE="$REPO/infra/scripts/schemathesis"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
VENV="$CACHE/schemathesis-venv"
ST_VERSION="4.32.5"

install() { pyvenv_install "$VENV" "schemathesis==$ST_VERSION"; }

if [[ "${1:-}" == install ]]; then # test.sh installs while other servers start
	install
	exit 0
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
random_suffix() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }

install
WORK="$(mktemp -d)"
gw_pid=""
cleanup() {
	if [[ -n "$gw_pid" ]] && kill -0 "$gw_pid" 2>/dev/null; then
		kill "$gw_pid"
		wait "$gw_pid" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$(free_port)"
export PORT DATA_DIR="$WORK/data" PG_BASE_URL="http://127.0.0.1:$PORT"
export SANDBOX_API_KEY="sk_test_$(random_suffix)" SANDBOX_CLIENT_KEY="ck_test_$(random_suffix)"
export SANDBOX_CLIENT_ORIGINS="https://shop.example.com"
export SANDBOX_DASHBOARD_PASSWORD="$(random_suffix)"
# One build, run directly: the pid we stop is the gateway's own.
go build -o "$WORK/local" ./infra/local
"$WORK/local" >"$WORK/gateway.log" 2>&1 &
gw_pid=$!
for _ in $(seq 1 100); do
	if python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1] + '/health', timeout=1)" "$PG_BASE_URL" 2>/dev/null; then
		break
	fi
	if ! kill -0 "$gw_pid" 2>/dev/null; then
		echo "schemathesis.sh: the gateway exited; log:" >&2
		cat "$WORK/gateway.log" >&2
		exit 1
	fi
	sleep 0.2
done

export PG_SEED_FILE="$WORK/seed.json" PG_HOOKS="$HERE/hooks.py"
"$VENV/bin/python" "$HERE/seed.py" >"$PG_SEED_FILE"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("seeded:", ", ".join(f"{k}={v[:12]}" for k, v in d.items() if k not in ("session_data", "dashboard_session")))' "$PG_SEED_FILE"
# The dashboard's pages are fuzzed with the sandbox owner's session.
PG_DASHBOARD_SESSION="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dashboard_session"])' "$PG_SEED_FILE")"
export PG_DASHBOARD_SESSION

status=0
"$VENV/bin/schemathesis" --config-file "$HERE/schemathesis.toml" run "$PG_BASE_URL/openapi.json" \
	--no-color --report junit --report-dir "$CACHE/schemathesis-report" "$@" || status=$?
if [[ $status -ne 0 ]]; then
	echo "schemathesis.sh: failures above; the gateway's log is $CACHE/schemathesis-gateway.log" >&2
	cp "$WORK/gateway.log" "$CACHE/schemathesis-gateway.log"
fi
exit $status
