#!/usr/bin/env bash
# make memory: every function's peak RSS and CPU per invocation on its
# events/ samples, and the MemorySize each should get (go run ./infra/invoke
# -memory), on DynamoDB Local and moto as Lambda runs on DynamoDB and SQS
# (reused when running, else started and stopped after).
#   memory.sh [flags of go run ./infra/invoke -memory, e.g. -write -only '^Wallet' -runs 20 -passes 3]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
stops=()
cleanup() { local c; for c in "${stops[@]}"; do eval "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
if [[ -z ${DYNAMODB_ENDPOINT:-} ]]; then
  if endpoint=$(infra/scripts/dynamodb-local.sh endpoint 2>/dev/null); then
    export DYNAMODB_ENDPOINT=$endpoint
  else
    endpoint=$(DYNAMODB_PORT=${DYNAMODB_PORT:-0} infra/scripts/dynamodb-local.sh start)
    stops+=("infra/scripts/dynamodb-local.sh stop")
    export DYNAMODB_ENDPOINT=$endpoint
  fi
fi
if [[ -z ${SQS_ENDPOINT:-} ]]; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if endpoint=$(MOTO_PORT=$port infra/scripts/moto.sh start 2>/dev/null); then
    stops+=("MOTO_PORT=$port infra/scripts/moto.sh stop")
    export SQS_ENDPOINT=$endpoint
  fi
fi
go run ./infra/invoke -memory -store dynamodb -table-prefix "paygate-memory-$$-" -runs 10 "$@"
