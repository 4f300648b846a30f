#!/usr/bin/env bash
# adyen-java.sh install|run URL KEY: Adyen's own Java library
# (com.adyen:adyen-java-api-library, infra/adyenlib) against the service's /v2
# face, changing only the base URL and the key, as docs/adyen-migration.md "Using Adyen's
# libraries" says a merchant does.
#   install        fetch the library from Maven Central (once; mvn's own
#                  repository caches it) and compile the check under
#                  $PAYGATE_CACHE/adyen-java
#   run URL KEY    run the check against a running gateway (installs first)
#   notifications FILE
#                  verify the Adyen-format notifications the Python check
#                  saved in FILE (NotificationCheck.java)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${PAYGATE_CACHE:-$REPO/.cache}"
SRC="$REPO/infra/adyenlib"
OUT="$CACHE/adyen-java"

die() { echo "adyen-java: $*" >&2; exit 1; }

install() {
	command -v java >/dev/null || die "java not found (need java 17+)"
	command -v javac >/dev/null || die "javac not found (need a JDK 17+)"
	command -v mvn >/dev/null || die "mvn not found"
	mkdir -p "$OUT"
	# The classpath is fetched again only when the pom changes.
	if [[ ! -f "$OUT/classpath" || "$SRC/pom.xml" -nt "$OUT/classpath" ]]; then
		mvn -q -B -Dstyle.color=never -f "$SRC/pom.xml" dependency:build-classpath \
			-Dmdep.outputFile="$OUT/classpath.new" >&2 || die "mvn could not fetch Adyen's Java library"
		mv "$OUT/classpath.new" "$OUT/classpath"
	fi
	rm -rf "$OUT/classes"
	javac -Xlint:all -Werror -cp "$(cat "$OUT/classpath")" -d "$OUT/classes" \
		"$SRC"/src/main/java/local/paygate/*.java || die "the check does not compile"
}

run() {
	local url=$1 key=$2 account
	install
	account=$(python3 - "$url" "$key" <<'PY'
import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "/v1/merchants/me", headers={"Authorization": sys.argv[2]})
print(json.load(urllib.request.urlopen(req, timeout=10))["merchant_account"])
PY
) || die "GET /v1/merchants/me failed"
	# The library logs through slf4j, which has no binding here: its notice goes.
	java -cp "$OUT/classes:$(cat "$OUT/classpath")" local.paygate.AdyenLibraryCheck "$url" "$key" "$account" 2> >(grep -v '^SLF4J:' >&2)
}

notifications() {
	install
	java -cp "$OUT/classes:$(cat "$OUT/classpath")" local.paygate.NotificationCheck "$1" 2> >(grep -v '^SLF4J:' >&2)
}

case "${1:-}" in
install) install ;;
run) [[ $# == 3 ]] || die "usage: adyen-java.sh run URL KEY"; run "$2" "$3" ;;
notifications) [[ $# == 2 ]] || die "usage: adyen-java.sh notifications FILE"; notifications "$2" ;;
*) die "usage: adyen-java.sh install | run URL KEY | notifications FILE" ;;
esac
