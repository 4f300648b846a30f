#!/usr/bin/env bash
# smoke-local.sh: the smoke test (infra/smoke), then Adyen's Java and Python
# libraries (infra/scripts/adyen-java.sh, adyen-python.sh) against the local
# gateway, and both libraries' HMAC checks of its Adyen-format notifications,
# then the smoke test again on STORE=dynamodb (DynamoDB Local and moto), as
# `make run` serves it: built from ./infra/local, started on a free port over a
# throw-away data directory with a fresh sandbox key, stopped after.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
random_suffix() { python3 -c 'import secrets; print(secrets.token_hex(16))'; }

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
KEY="sk_test_$(random_suffix)"
go build -o "$WORK/local" ./infra/local
go build -o "$WORK/smoke" ./infra/smoke
PORT="$PORT" DATA_DIR="$WORK/data" SANDBOX_API_KEY="$KEY" "$WORK/local" >"$WORK/gateway.log" 2>&1 &
gw_pid=$!
URL="http://127.0.0.1:$PORT"
# wait_up LOG waits until the gateway at $URL answers /health.
wait_up() {
	for _ in $(seq 1 600); do
		if python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1] + '/health', timeout=1)" "$URL" 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$gw_pid" 2>/dev/null; then
			echo "smoke-local.sh: the gateway exited; log:" >&2
			cat "$1" >&2
			exit 1
		fi
		sleep 0.2
	done
	echo "smoke-local.sh: the gateway did not answer in 2 minutes; log:" >&2
	cat "$1" >&2
	exit 1
}
wait_up "$WORK/gateway.log"

if ! "$WORK/smoke" -url "$URL" -key "$KEY"; then
	echo "smoke-local.sh: the gateway's log ends:" >&2
	tail -n 40 "$WORK/gateway.log" >&2
	exit 1
fi

# Adyen's own Java library against the /v2 face of the same gateway.
if ! infra/scripts/adyen-java.sh run "$URL" "$KEY"; then
	echo "smoke-local.sh: Adyen's Java library failed; the gateway's log ends:" >&2
	tail -n 40 "$WORK/gateway.log" >&2
	exit 1
fi

# Adyen's own Python library, likewise; it keeps the Adyen-format
# notifications it verified, for the Java library to verify too.
if ! infra/scripts/adyen-python.sh run "$URL" "$KEY" "$WORK/notifications.json"; then
	echo "smoke-local.sh: Adyen's Python library failed; the gateway's log ends:" >&2
	tail -n 40 "$WORK/gateway.log" >&2
	exit 1
fi
if ! infra/scripts/adyen-java.sh notifications "$WORK/notifications.json"; then
	echo "smoke-local.sh: Adyen's Java library refused a notification" >&2
	exit 1
fi

# The same gateway on the real servers' APIs (STORE=dynamodb: DynamoDB Local
# and moto, as make test starts them), its own tables and queues under a
# fresh prefix: the smoke test again.
if [[ -n "${DYNAMODB_ENDPOINT:-}" && -n "${SQS_ENDPOINT:-}" ]]; then
	kill "$gw_pid"
	wait "$gw_pid" 2>/dev/null || true
	PORT="$(free_port)"
	URL="http://127.0.0.1:$PORT"
	STORE=dynamodb TABLE_PREFIX="smoke$(random_suffix | cut -c1-8)-" PORT="$PORT" DATA_DIR="$WORK/cloud-data" \
		SANDBOX_API_KEY="$KEY" "$WORK/local" >"$WORK/gateway-cloud.log" 2>&1 &
	gw_pid=$!
	wait_up "$WORK/gateway-cloud.log"
	if ! "$WORK/smoke" -url "$URL" -key "$KEY"; then
		echo "smoke-local.sh: the smoke test failed on STORE=dynamodb; the gateway's log ends:" >&2
		tail -n 40 "$WORK/gateway-cloud.log" >&2
		exit 1
	fi
elif [[ -n "${REQUIRE_REAL_SERVERS:-}" ]]; then
	echo "smoke-local.sh: REQUIRE_REAL_SERVERS is set but DYNAMODB_ENDPOINT or SQS_ENDPOINT is not" >&2
	exit 1
fi
