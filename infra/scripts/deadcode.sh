#!/usr/bin/env bash
# Dead code: golang.org/x/tools/cmd/deadcode (a go.mod tool) over every
# function's main and every infra/ command, so a function only tests call
# shows up. Test kits (packages named *test, shared/testkit/apitest) exist for tests
# and are left out, as is infra/samtemplate, the template reader whose lookups
# and derivation of what template.yaml must say serve the tests that hold the
# template to the registry. What else only tests or a later route reach is
# listed, with why, in deadcode-allow.txt. Anything else fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
allow=infra/scripts/deadcode-allow.txt
found=$(go tool deadcode ./functions/... ./infra/... |
  grep -Ev '^(shared/testkit/apitest/|infra/samtemplate/|[^:]*test/[^/:]*\.go:)' || true)
left=()
while IFS= read -r line; do
  [[ -z $line ]] && continue
  # "path/file.go:line:col: unreachable func: Name": allowed by file and name.
  file=${line%%:*}
  name=${line##*: }
  grep -Eq "^${file}[[:space:]]+${name}[[:space:]]" "$allow" || left+=("$line")
done <<<"$found"
# An allowed entry that is no longer dead is stale: the list stays short.
while read -r file name _; do
  [[ -z $file || $file == \#* ]] && continue
  grep -q "^${file}:.*: ${name}\$" <<<"$found" || left+=("$file $name: listed in $allow but no longer dead; remove the line")
done <"$allow"
if ((${#left[@]} > 0)); then
  echo "dead code (remove it, move it to the test helpers that use it, or justify it in $allow):"
  printf '  %s\n' "${left[@]}"
  exit 1
fi
echo "deadcode: ok"
