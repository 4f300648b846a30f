#!/usr/bin/env bash
# adyen-python.sh install|run URL KEY: Adyen's own Python library (Adyen on
# PyPI, pinned below, in a cached venv) against the service's /v2 face,
# changing only the base URL and the key (infra/adyenpy/check.py).
#   install        install the library into $PAYGATE_CACHE/adyen-python (once)
#   run URL KEY [OUT]
#                  run the check against a running gateway (installs first);
#                  OUT receives the Adyen-format notifications it checked
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
VENV="$CACHE/adyen-python"
PIN="Adyen==16.0.0"
# shellcheck source=pyvenv.sh
source "$REPO/infra/scripts/pyvenv.sh"

die() { echo "adyen-python: $*" >&2; exit 1; }

install() { pyvenv_install "$VENV" "$PIN" || die "pip could not install $PIN"; }

run() {
	local url=$1 key=$2 out=${3:-} account
	install
	account=$(python3 - "$url" "$key" <<'PY'
import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "/v1/merchants/me", headers={"Authorization": sys.argv[2]})
print(json.load(urllib.request.urlopen(req, timeout=10))["merchant_account"])
PY
) || die "GET /v1/merchants/me failed"
	"$VENV/bin/python" "$REPO/infra/adyenpy/check.py" "$url" "$key" "$account" ${out:+"$out"}
}

case "${1:-}" in
install) install ;;
run) [[ $# == 3 || $# == 4 ]] || die "usage: adyen-python.sh run URL KEY [OUT]"; run "$2" "$3" "${4:-}" ;;
*) die "usage: adyen-python.sh install | run URL KEY [OUT]" ;;
esac
