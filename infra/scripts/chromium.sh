#!/usr/bin/env bash
# chromium.sh install|path: Debian's chromium for the browser tests (the
# hosted payment page and the Drop-in, driven from Go with chromedp) and the
# hosted page's benchmark. install puts it on the machine once (apt-get,
# which needs root; the .deb files are kept under $PAYGATE_CACHE/apt so a
# reinstall downloads nothing) and prints the binary's path; path only
# prints it (exit 1 when it is not installed).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"

find_chromium() {
	local c
	for c in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
		if [[ -n "$c" && -x "$c" ]]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

install() {
	if find_chromium; then
		return 0
	fi
	if [[ "$(id -u)" != 0 ]]; then
		echo "chromium is not installed and installing it needs root: apt-get install chromium" >&2
		return 1
	fi
	local archives="$CACHE/apt/archives"
	mkdir -p "$archives/partial"
	export DEBIAN_FRONTEND=noninteractive
	# The package lists first (a fresh machine has none, or stale ones).
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends -o Dir::Cache::archives="$archives" chromium >&2
	find_chromium
}

case "${1:-}" in
install) install ;;
path) find_chromium ;;
*)
	echo "usage: $0 install|path" >&2
	exit 2
	;;
esac
