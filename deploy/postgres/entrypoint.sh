#!/bin/sh
# First start on an empty PGDATA: initdb with POSTGRES_USER / POSTGRES_PASSWORD and create POSTGRES_DB, as the
# official image does. Then run the server, listening on every interface with password (scram) auth.
set -eu
PGDATA=${PGDATA:-/var/lib/postgresql/data}
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "POSTGRES_PASSWORD must be set for the first start" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
[ "${1:-}" = postgres ] && shift
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
