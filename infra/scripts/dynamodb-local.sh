#!/usr/bin/env bash
# DynamoDB Local for tests: fetched once from Maven Central (needs only java 17
# and mvn), cached, run in memory on 127.0.0.1.
#   dynamodb-local.sh start     start (or reuse) it; prints the endpoint
#   dynamodb-local.sh stop      stop it
#   dynamodb-local.sh endpoint  print the endpoint of the running instance
# Env: DYNAMODB_PORT (default 8000; 0 picks a free one), PAYGATE_CACHE
# (default <repo>/.cache). Needs java 17+ and mvn; the first start downloads.
#   export DYNAMODB_ENDPOINT=$(infra/scripts/dynamodb-local.sh start)
set -euo pipefail

VERSION=3.3.1
SQLITE4JAVA=1.0.392
AWS_SDK=2.54.15
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=${PAYGATE_CACHE:-$REPO/.cache}/dynamodb-local
LIB=$DIR/$VERSION/lib
NATIVE=$DIR/$VERSION/native
PIDFILE=$DIR/pid
PORTFILE=$DIR/port
LOG=$DIR/server.log

die() { echo "dynamodb-local: $*" >&2; exit 1; }

# install fetches the jar, its dependencies and the sqlite4java native
# library (DynamoDB Local keeps even -inMemory tables in sqlite).
install() {
  [[ -f $DIR/$VERSION/.installed ]] && return 0
  command -v java >/dev/null || die "java not found (need java 17+)"
  command -v mvn >/dev/null || die "mvn not found"
  local work=$DIR/$VERSION/build
  rm -rf "$LIB" "$NATIVE" "$work"
  mkdir -p "$LIB" "$NATIVE" "$work"
  cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.paygate</groupId>
  <artifactId>dynamodb-local-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <!-- One AWS SDK version for every SDK module the server pulls in: the
       version its pom names is missing some modules on some mirrors. -->
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>software.amazon.awssdk</groupId>
        <artifactId>bom</artifactId>
        <version>$AWS_SDK</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>software.amazon.dynamodb</groupId>
      <artifactId>DynamoDBLocal</artifactId>
      <version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
  echo "dynamodb-local: fetching DynamoDBLocal $VERSION from Maven Central (first run only)" >&2
  # mvn's output goes to stderr: stdout carries only the endpoint.
  mvn -q -B -Dstyle.color=never -f "$work/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$LIB" -DincludeScope=runtime -Dmdep.stripVersion=true >&2 \
    || die "mvn could not fetch DynamoDBLocal $VERSION"
  # Native libraries go to their own directory under the names sqlite4java
  # looks up (libsqlite4java-<os>-<arch>.so, versions stripped).
  local f
  for f in "$LIB"/*.so "$LIB"/*.dylib "$LIB"/*.dll; do
    [[ -e $f ]] && mv "$f" "$NATIVE/"
  done
  # Maven's DynamoDBLocal pom lists no linux arm64 library; fetch it when the
  # machine needs it and Maven Central has it.
  if [[ $(uname -m) == aarch64 || $(uname -m) == arm64 ]] && [[ $(uname -s) == Linux ]]; then
    mvn -q -B -Dstyle.color=never dependency:copy \
      -Dartifact="com.almworks.sqlite4java:libsqlite4java-linux-aarch64:$SQLITE4JAVA:so" \
      -DoutputDirectory="$NATIVE" -Dmdep.stripVersion=true >&2 \
      || echo "dynamodb-local: no linux-aarch64 sqlite4java on Maven Central" >&2
  fi
  ls "$NATIVE"/* >/dev/null 2>&1 || die "no sqlite4java native library was fetched"
  rm -rf "$work"
  touch "$DIR/$VERSION/.installed"
}

# running: the recorded pid is alive and (where /proc tells) still ours.
running() {
  [[ -f $PIDFILE ]] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  kill -0 "$pid" 2>/dev/null || return 1
  [[ ! -r /proc/$pid/cmdline ]] || grep -q ServerRunner "/proc/$pid/cmdline"
}

endpoint() {
  running || die "not running"
  echo "http://127.0.0.1:$(cat "$PORTFILE")"
}

# listening: something accepts connections on the port (bash's /dev/tcp, so
# no curl is needed).
listening() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port picks the first port from 8000 that nobody listens on.
free_port() {
  local p
  for p in $(seq 8000 8999); do
    listening "$p" || { echo "$p"; return 0; }
  done
  die "no free port in 8000-8999"
}

start() {
  if running; then endpoint; return 0; fi
  install
  local port=${DYNAMODB_PORT:-8000}
  [[ $port == 0 ]] && port=$(free_port)
  if listening "$port"; then
    die "port $port is taken by another process (set DYNAMODB_PORT, 0 for any free one)"
  fi
  mkdir -p "$DIR"
  # setsid detaches the server from the caller's session so it outlives this
  # script. The launcher writes its own pid before it execs java, so the
  # pidfile names java whether or not setsid had to fork. ($! will not do:
  # until the exec, /proc shows bash there, and a check made in that window
  # took a starting server for a dead one.)
  local detach=()
  command -v setsid >/dev/null && detach=(setsid)
  rm -f "$PIDFILE"
  # DynamoDB Local writes a metadata file into its working directory.
  cd "$DIR"
  "${detach[@]}" bash -c 'echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && shift && exec "$@"' launch "$PIDFILE" \
    java -Djava.library.path="$NATIVE" -Dsqlite4java.library.path="$NATIVE" \
    -cp "$LIB/*" software.amazon.dynamodb.services.local.main.ServerRunner \
    -inMemory -sharedDb -port "$port" >"$LOG" 2>&1 </dev/null &
  echo "$port" >"$PORTFILE"
  local i pid
  for i in $(seq 1 120); do
    if listening "$port"; then endpoint; return 0; fi
    pid=$(cat "$PIDFILE" 2>/dev/null || true)
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      cat "$LOG" >&2; rm -f "$PIDFILE"; die "server exited"
    fi
    sleep 0.5
  done
  stop
  die "server did not answer on port $port within 60s (log: $LOG)"
}

stop() {
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
  rm -f "$PIDFILE" "$PORTFILE"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  endpoint) endpoint ;;
  *) echo "usage: $0 start|stop|endpoint" >&2; exit 2 ;;
esac
