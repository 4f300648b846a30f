#!/usr/bin/env bash
# gofmt, go vet and staticcheck (pinned as a go.mod tool) over the module.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
unformatted=$(gofmt -l functions shared infra)
if [[ -n $unformatted ]]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go tool staticcheck ./...
echo "lint: ok"
