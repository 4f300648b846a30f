#!/usr/bin/env bash
# make chaos: the money workloads of infra/chaos on DynamoDB Local and moto
# under injected faults and kill -9 of the local gateway. Uses the servers of
# DYNAMODB_ENDPOINT and SQS_ENDPOINT when set; otherwise starts (and installs,
# the first time) its own and stops them after. Arguments go to infra/chaos
# (-seed N replays a run; -bounded is make test's short run).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
scripts=infra/scripts
export PAYGATE_CACHE=${PAYGATE_CACHE:-$REPO/.cache}
mkdir -p "$PAYGATE_CACHE"

if [[ -z "${DYNAMODB_ENDPOINT:-}" || -z "${SQS_ENDPOINT:-}" ]]; then
  free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  export DYNAMODB_PORT=${DYNAMODB_PORT:-0} MOTO_PORT=${MOTO_PORT:-$(free_port)}
  trap '"$scripts/dynamodb-local.sh" stop >/dev/null 2>&1 || true; "$scripts/moto.sh" stop >/dev/null 2>&1 || true' EXIT
  DYNAMODB_ENDPOINT=$("$scripts/dynamodb-local.sh" start | tail -n 1)
  SQS_ENDPOINT=$("$scripts/moto.sh" start | tail -n 1)
  export DYNAMODB_ENDPOINT SQS_ENDPOINT
fi
go run ./infra/chaos "$@"
