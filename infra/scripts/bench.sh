#!/usr/bin/env bash
# make bench: starts (or reuses) DynamoDB Local and moto so the round-trip
# counts are measured, runs the benchmark table, and stops the servers it
# started (ones it found running stay). The load rows build and start the
# local gateway (./infra/local) on a free 127.0.0.1 port and stop it after.
# Without java (or python), the DynamoDB (or SQS) rows say "skipped" and the
# rest still runs. The figures go, dated, into docs/benchmarks.md (-write).
#   bench.sh [flags of go run ./infra/bench, e.g. -runs 30 -strict -concurrency 50]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
stops=()
cleanup() { local c; for c in "${stops[@]}"; do eval "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
if [[ -z ${DYNAMODB_ENDPOINT:-} ]]; then
  # Reuse a DynamoDB Local that is already running (and leave it running).
  if endpoint=$(infra/scripts/dynamodb-local.sh endpoint 2>/dev/null); then
    export DYNAMODB_ENDPOINT=$endpoint
  elif endpoint=$(DYNAMODB_PORT=${DYNAMODB_PORT:-0} infra/scripts/dynamodb-local.sh start 2>/dev/null); then
    stops+=("infra/scripts/dynamodb-local.sh stop")
    export DYNAMODB_ENDPOINT=$endpoint
  else
    echo "bench: DynamoDB Local could not start; DynamoDB rows will be skipped" >&2
  fi
fi
if [[ -z ${SQS_ENDPOINT:-} ]]; then
  # moto's SQS, for the webhook pipeline's call counts.
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if endpoint=$(MOTO_PORT=$port infra/scripts/moto.sh start 2>/dev/null); then
    stops+=("MOTO_PORT=$port infra/scripts/moto.sh stop")
    export SQS_ENDPOINT=$endpoint
  else
    echo "bench: moto could not start; the webhook SQS rows will be skipped" >&2
  fi
fi
go run ./infra/bench "$@"
