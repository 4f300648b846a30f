#!/usr/bin/env bash
# make test: everything CI runs, on a fresh machine. It installs and starts
# what it needs (DynamoDB Local from Maven Central, moto server from PyPI, the
# SAM CLI and schemathesis from PyPI; all cached under .cache after the first
# run) and stops the servers it started.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
scripts=infra/scripts
export PAYGATE_CACHE=${PAYGATE_CACHE:-$REPO/.cache}
mkdir -p "$PAYGATE_CACHE"

step() { printf '\n== %s\n' "$*"; }

# Free ports, so a server left on the default ports (a developer's) neither
# blocks this run nor gets stopped by it.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export DYNAMODB_PORT=${DYNAMODB_PORT:-0} MOTO_PORT=${MOTO_PORT:-$(free_port)}

# The servers are stopped on exit, also when a step fails.
cleanup() {
  "$scripts/dynamodb-local.sh" stop >/dev/null 2>&1 || true
  "$scripts/moto.sh" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "lint"
"$scripts/lint.sh"

step "start DynamoDB Local and moto, install schemathesis, Chromium and Adyen's Java library (first run installs them)"
ddb_log="$PAYGATE_CACHE/test-ddb.out"; moto_log="$PAYGATE_CACHE/test-moto.out"
# Install and start both at once; each prints its endpoint last.
"$scripts/dynamodb-local.sh" start >"$ddb_log" & ddb_pid=$!
"$scripts/moto.sh" start >"$moto_log" & moto_pid=$!
# schemathesis (a later step) installs meanwhile.
st_log="$PAYGATE_CACHE/test-schemathesis-install.out"
"$scripts/schemathesis.sh" install >"$st_log" 2>&1 & st_pid=$!
# Debian's chromium for the browser tests (apt-get, once; the .deb files are
# kept under the cache).
cr_log="$PAYGATE_CACHE/test-chromium.out"
"$scripts/chromium.sh" install >"$cr_log" 2>&1 & cr_pid=$!
# Adyen's Java library (Maven Central, once) for the /v2 check after the smoke test.
aj_log="$PAYGATE_CACHE/test-adyen-java.out"
"$scripts/adyen-java.sh" install >"$aj_log" 2>&1 & aj_pid=$!
# axe-core (npm) for the dashboard's accessibility audit.
axe_log="$PAYGATE_CACHE/test-axe.out"
"$scripts/axe.sh" install >"$axe_log" 2>&1 & axe_pid=$!
wait $ddb_pid || { echo "DynamoDB Local did not start"; exit 1; }
wait $moto_pid || { echo "moto did not start"; exit 1; }
wait $st_pid || { echo "schemathesis did not install:"; cat "$st_log"; exit 1; }
wait $cr_pid || { echo "chromium did not install:"; cat "$cr_log"; exit 1; }
wait $aj_pid || { echo "Adyen's Java library did not install:"; cat "$aj_log"; exit 1; }
wait $axe_pid || { echo "axe-core did not install:"; cat "$axe_log"; exit 1; }
DYNAMODB_ENDPOINT=$(tail -n 1 "$ddb_log")
SQS_ENDPOINT=$(tail -n 1 "$moto_log")
CHROMIUM=$(tail -n 1 "$cr_log")
AXE_CORE=$(tail -n 1 "$axe_log")
# The browser tests fail, rather than skip, without a browser.
export DYNAMODB_ENDPOINT SQS_ENDPOINT CHROMIUM AXE_CORE REQUIRE_REAL_SERVERS=1 REQUIRE_BROWSER=1
echo "DynamoDB Local: $DYNAMODB_ENDPOINT"
echo "moto (SQS):     $SQS_ENDPOINT"
echo "Chromium:       $CHROMIUM"
echo "axe-core:       $AXE_CORE"

step "go test -race (all packages; contract suites on the embedded adapters, DynamoDB Local and moto; invoker; browser tests in headless Chromium)"
go test -race -count=1 -timeout 30m ./...

step "smoke test against the local gateway (infra/smoke, as the pipeline runs it after each deploy), then Adyen's Java and Python libraries against its /v2 face and its Adyen-format notifications, then the smoke test again on STORE=dynamodb (DynamoDB Local and moto)"
"$scripts/smoke-local.sh"

step "chaos, bounded (infra/chaos: orders on one Gate balance, card payments with captures and refunds, payouts in a burst, a distribution and settlement payment orders, webhooks to a receiver that fails and recovers, on DynamoDB Local and moto behind Toxiproxy, under every SDK and network fault kind and kill -9; nothing lost, nothing doubled, porcupine, the ledger; the seed is fixed here so CI replays one schedule, make chaos draws a new one)"
go run ./infra/chaos -bounded -seed 1

# The servers are not needed past this point: stop them before schemathesis
# so the two cores go to the gateway and the fuzzer.
cleanup

step "schemathesis against the local gateway (every check, bounded; known failures in infra/scripts/schemathesis/hooks.py)"
"$scripts/schemathesis.sh"

step "sam validate --lint (every stack: template.yaml, its nested stacks in infra/stacks, and the pipeline's roles)"
"$scripts/sam.sh" validate --lint
for t in infra/stacks/*.yaml infra/pipeline/roles.yaml; do
	"$scripts/sam.sh" validate --lint -t "$t"
done

step "sam build (template.yaml builds every nested stack's functions too)"
"$scripts/sam.sh" build

step "make test: ok"
