#!/usr/bin/env bash
# pg.sh start|stop|url — a throwaway PostgreSQL 15 cluster for superstep's
# tests, used by .ci/run and by developers:
#
#   eval "$(.ci/pg.sh start)"      # starts it, prints the export line
#   go test ./persist/postgres/    # the tests read SUPERSTEP_TEST_POSTGRES
#   .ci/pg.sh stop                 # stops it and removes its files
#
# The cluster lives in SUPERSTEP_PG_DIR (default /tmp/superstep-pg-PORT),
# listens on 127.0.0.1:SUPERSTEP_PG_PORT (default 55432) and on a socket in
# that directory, and runs as the invoking user, or as "postgres" (else
# "nobody") when invoked as root: the server refuses to run as root.
# Password authentication is required over TCP (user superstep, password
# superstep), so the tests can check what a wrong password says.
# When the binaries are missing and we are root, Debian's postgresql-15 is
# installed with apt-get.
set -euo pipefail

PORT="${SUPERSTEP_PG_PORT:-55432}"
DIR="${SUPERSTEP_PG_DIR:-/tmp/superstep-pg-$PORT}"
PGBIN="${SUPERSTEP_PG_BIN:-/usr/lib/postgresql/15/bin}"
URL="postgres://superstep:superstep@127.0.0.1:$PORT/superstep_test?sslmode=disable"

log() { echo "pg.sh: $*" >&2; }

# as runs a command as the cluster's owner.
as() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
		return
	fi
	local user=postgres
	id -u postgres >/dev/null 2>&1 || user=nobody
	runuser -u "$user" -- "$@"
}

owner() {
	if [ "$(id -u)" -ne 0 ]; then id -un; elif id -u postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

install_if_missing() {
	[ -x "$PGBIN/postgres" ] && return
	if [ "$(id -u)" -ne 0 ]; then
		log "no PostgreSQL 15 in $PGBIN; install Debian's postgresql-15 (or set SUPERSTEP_PG_BIN)"
		exit 1
	fi
	log "installing postgresql-15"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql-15 >&2
}

start() {
	install_if_missing
	if [ -f "$DIR/data/postmaster.pid" ] && as "$PGBIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
		log "already running in $DIR"
		echo "export SUPERSTEP_TEST_POSTGRES='$URL'"
		return
	fi
	rm -rf "$DIR"
	mkdir -p "$DIR"
	chmod 700 "$DIR"
	chown "$(owner)" "$DIR"
	echo superstep >"$DIR/pwfile"
	chown "$(owner)" "$DIR/pwfile"
	as "$PGBIN/initdb" -D "$DIR/data" -U superstep --pwfile="$DIR/pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
		{ cat "$DIR/initdb.log" >&2; exit 1; }
	# A test server: no fsync would make the durability numbers meaningless,
	# so it stays on; the rest keeps a small footprint on a shared machine.
	cat >>"$DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 200
shared_buffers = 64MB
log_min_messages = warning
EOF
	as "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start >/dev/null ||
		{ cat "$DIR/server.log" >&2; exit 1; }
	as "$PGBIN/createdb" -h "$DIR" -p "$PORT" -U superstep superstep_test
	log "PostgreSQL running on 127.0.0.1:$PORT (files in $DIR)"
	echo "export SUPERSTEP_TEST_POSTGRES='$URL'"
}

stop() {
	if [ -d "$DIR/data" ]; then
		as "$PGBIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$DIR"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) echo "$URL" ;;
*)
	echo "usage: $0 start|stop|url" >&2
	exit 2
	;;
esac
