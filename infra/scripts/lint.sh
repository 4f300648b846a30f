#!/usr/bin/env bash
# gofmt, go vet and staticcheck (pinned as a go.mod tool) over the module,
# actionlint (also a go.mod tool) over .github/workflows and deadcode over the
# functions and infra/ commands,
# after a check of what git tracks: no build outputs, no large files.
#   lint.sh                  everything
#   lint.sh tracked-files    only the check of tracked files
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Tracked files must be sources. Outside any testdata/ directory it fails on
# a tracked file that is an executable binary (ELF, Mach-O, PE) or Python
# bytecode (a .pyc, anything under __pycache__/), a merge or patch leftover
# (.orig, .rej), that has the
# executable bit without being a script (#!), or that is over 1 MB: build
# outputs and blobs belong in .gitignore, not in history.
max_bytes=$((1 << 20))
check_tracked_files() {
  local bad=() entries sizes i meta mode object path size magic
  # The index's mode, blob and size: what a commit would record.
  mapfile -t entries < <(git -c core.quotePath=false ls-files -s)
  mapfile -t sizes < <(printf '%s\n' "${entries[@]}" | awk '{print $2}' | git cat-file --batch-check='%(objectsize)')
  for i in "${!entries[@]}"; do
    meta=${entries[i]%%$'\t'*} path=${entries[i]#*$'\t'} size=${sizes[i]}
    read -r mode object _ <<<"$meta"
    [[ /$path/ == */testdata/* || $mode == 160000 ]] && continue # (160000: a submodule, no blob)
    case $path in
      *.pyc|*/__pycache__/*) bad+=("$path: Python bytecode (a build output)"); continue ;;
      *.orig|*.rej) bad+=("$path: a merge or patch leftover"); continue ;;
    esac
    # (|| true: git gets SIGPIPE once head has its 4 bytes)
    magic=$({ git cat-file blob "$object" || true; } | head -c 4 | od -An -tx1 | tr -d ' \n')
    case $magic in
      7f454c46) bad+=("$path: ELF executable"); continue ;;
      feedface|feedfacf|cefaedfe|cffaedfe|cafebabe) bad+=("$path: Mach-O (or Java class) binary"); continue ;;
      4d5a*) bad+=("$path: PE (Windows) executable"); continue ;;
    esac
    if [[ $mode == 100755 && $magic != 2321* ]]; then
      bad+=("$path: executable bit on a file that is not a #! script")
    fi
    if ((size > max_bytes)); then
      bad+=("$path: $size bytes, over 1 MB (keep large fixtures under a testdata/ directory)")
    fi
  done
  if ((${#bad[@]} > 0)); then
    echo "tracked files that must not be committed (git rm --cached them, and ignore build outputs):"
    printf '  %s\n' "${bad[@]}"
    return 1
  fi
}

check_tracked_files
if [[ ${1:-} == tracked-files ]]; then
  echo "lint: tracked files ok"; exit 0
fi

unformatted=$(gofmt -l functions shared infra)
if [[ -n $unformatted ]]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go tool staticcheck ./...
# The GitHub Actions workflows (expressions, job graph, action inputs; and
# their run: scripts when shellcheck is on the PATH). Pinned in go.mod.
go tool actionlint
# Functions nothing but tests reaches (golang.org/x/tools' deadcode, a go.mod
# tool), against a short allow-list with reasons.
infra/scripts/deadcode.sh
echo "lint: ok"
