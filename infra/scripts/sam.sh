#!/usr/bin/env bash
# sam.sh ARGS...: run the AWS SAM CLI (installed from PyPI into a cached venv)
# with ARGS, from the repo root, e.g. `sam.sh validate --lint`, `sam.sh build`.
# validate and build need a region but no credentials, so a default region is
# set and telemetry is off (CI has no network beyond the package registries).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=pyvenv.sh
source "$REPO/infra/scripts/pyvenv.sh"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
VENV="$CACHE/sam-venv"
SAM_VERSION="1.170.0"

install() { pyvenv_install "$VENV" "aws-sam-cli==$SAM_VERSION"; }

install
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
export AWS_REGION="${AWS_REGION:-$AWS_DEFAULT_REGION}"
export SAM_CLI_TELEMETRY=0
# SAM's go1.x builder runs `go build -o <artifact>/bootstrap <CodeUri>` in the
# CodeUri directory with this environment and GOOS/GOARCH from the template;
# go finds the root go.mod by walking up. The builder has no option for tags
# or ldflags (only Metadata.BuildProperties.TrimGoPath), so they come through
# GOFLAGS (go accepts quoted entries): static, stripped, reproducible binaries
# without the go1.x RPC shim that provided.al2023 never uses.
export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath -tags=lambda.norpc '-ldflags=-s -w'"
cd "$REPO"
exec "$VENV/bin/sam" "$@"
