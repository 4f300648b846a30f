#!/usr/bin/env bash
# moto.sh start|stop|endpoint: a local moto server (SQS, and DynamoDB as a
# fallback) for tests. The venv is cached so only the first start downloads.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=pyvenv.sh
source "$REPO/infra/scripts/pyvenv.sh"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
VENV="$CACHE/moto-venv"
MOTO_VERSION="5.2.5"
PORT="${MOTO_PORT:-5000}"
HOST="127.0.0.1"
PIDFILE="$CACHE/moto-$PORT.pid"
LOGFILE="$CACHE/moto-$PORT.log"
ENDPOINT="http://$HOST:$PORT"

usage() {
	echo "usage: $0 start|stop|endpoint" >&2
	exit 2
}

# answering: true when a moto server answers on the port.
answering() {
	python3 - "$ENDPOINT" <<'PY' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/moto-api/", timeout=1)
PY
}

running_pid() {
	[[ -f "$PIDFILE" ]] || return 1
	local pid
	pid="$(cat "$PIDFILE")"
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

install() { pyvenv_install "$VENV" "moto[server]==$MOTO_VERSION"; }

start() {
	if running_pid >/dev/null && answering; then
		echo "$ENDPOINT"
		return 0
	fi
	if answering; then
		echo "moto.sh: port $PORT is taken by another process" >&2
		exit 1
	fi
	install
	# setsid detaches the server from this shell's process group so callers
	# that wait on us do not wait on it. The launcher writes its own pid
	# before it execs the server, so the pidfile names the server whether or
	# not setsid had to fork (then $! would be setsid's pid, soon gone).
	rm -f "$PIDFILE"
	setsid bash -c 'echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && shift && exec "$@"' launch "$PIDFILE" \
		"$VENV/bin/moto_server" -H "$HOST" -p "$PORT" >"$LOGFILE" 2>&1 </dev/null &
	for _ in $(seq 1 100); do
		if answering; then
			echo "$ENDPOINT"
			return 0
		fi
		if [[ -f "$PIDFILE" ]] && ! running_pid >/dev/null; then
			echo "moto.sh: moto_server exited; log:" >&2
			cat "$LOGFILE" >&2
			exit 1
		fi
		sleep 0.2
	done
	echo "moto.sh: moto_server did not answer on $ENDPOINT within 20 s" >&2
	exit 1
}

stop() {
	local pid
	if pid="$(running_pid)"; then
		kill "$pid"
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -f "$PIDFILE"
}

[[ $# -eq 1 ]] || usage
case "$1" in
start) start ;;
stop) stop ;;
endpoint) echo "$ENDPOINT" ;;
*) usage ;;
esac
