#!/usr/bin/env bash
# axe.sh install|path: axe-core (npm), the accessibility engine the
# dashboard's browser tests run in each page. install fetches the pinned
# version's package once with npm (kept under $PAYGATE_CACHE/axe-core),
# checks its hash, and prints the path of axe.min.js; path only prints it
# (exit 1 when it is not installed).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
VERSION=4.10.2
# sha256 of axe-core-$VERSION.tgz as the npm registry serves it.
SHA256=9ea2d2d6917da998122bdacfd3b473e31ead53f4b87146c716a12edf89158100
DIR="$CACHE/axe-core/$VERSION"

path() {
	[[ -f "$DIR/package/axe.min.js" ]] && echo "$DIR/package/axe.min.js"
}

install() {
	if path; then
		return 0
	fi
	mkdir -p "$DIR"
	(cd "$DIR" && npm pack --silent "axe-core@$VERSION" >/dev/null)
	echo "$SHA256  $DIR/axe-core-$VERSION.tgz" | sha256sum -c --quiet - >&2
	tar -xzf "$DIR/axe-core-$VERSION.tgz" -C "$DIR" package/axe.min.js package/LICENSE
	path
}

case "${1:-}" in
install) install ;;
path) path ;;
*)
	echo "usage: $0 install|path" >&2
	exit 2
	;;
esac
