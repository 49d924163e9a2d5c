#!/usr/bin/env bash
# Scale-out, shown: three instances of the built server (node dist/main.js) on one fresh PostgreSQL
# database and one Redis, behind nginx (round robin), and scripts/scale-out/smoke.ts run through nginx
# only: REST and GraphQL, a key revocation, the shared rate limit, cron called from every instance at
# once, and a realtime change written on one instance and received on another. Everything it starts
# (instances, nginx, the database, a temporary directory) is stopped and removed on exit, on failure too.
#
#   bash scripts/scale-out/run.sh
#
# Settings (environment): SCALE_OUT_PG_URL, a PostgreSQL server's URL with the right to create
# databases (default postgresql://postgres@127.0.0.1:5432/postgres); SCALE_OUT_REDIS_URL (default
# redis://127.0.0.1:6379); NGINX (default: nginx on the PATH, else /usr/sbin/nginx); SCALE_OUT_KEEP=1
# keeps the temporary directory (logs, nginx.conf) afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."

pg_server_url="${SCALE_OUT_PG_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
redis_url="${SCALE_OUT_REDIS_URL:-redis://127.0.0.1:6379}"
nginx_bin="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
started=$(date +%s)

say() { printf '[scale-out] %s\n' "$*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

[ -x "$nginx_bin" ] || fail "nginx not found (install it: apt-get install -y nginx; or set NGINX)"
# One statement on the PostgreSQL server (creating and dropping the database), with the project's pg.
pg_admin() {
  node -e '
    const pg = require("pg");
    const client = new pg.Client({ connectionString: process.argv[1] });
    client.connect().then(() => client.query(process.argv[2])).finally(() => client.end())
      .catch((error) => { console.error(error.message); process.exit(1); });' "$pg_server_url" "$1"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/scale-out.XXXXXX")
db_name="scale_out_$(date +%s)_$$"
db_url="${pg_server_url%/*}/${db_name}"
instance_pids=()
nginx_pid=""
db_created=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  set +e
  if [ -n "$nginx_pid" ]; then kill -QUIT "$nginx_pid" 2>/dev/null; fi
  for pid in "${instance_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  # SIGTERM: each instance drains and exits within SHUTDOWN_TIMEOUT_MS (5 s here); then nothing is left.
  for _ in $(seq 1 80); do
    local alive=0
    for pid in "${instance_pids[@]}" $nginx_pid; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${instance_pids[@]}" $nginx_pid; do kill -KILL "$pid" 2>/dev/null; done
  if [ "$status" != 0 ]; then
    for log in "$work"/instance-*.log "$work"/nginx-error.log; do
      [ -s "$log" ] || continue
      say "--- last lines of $(basename "$log")" >&2
      tail -n 20 "$log" >&2
    done
  fi
  if [ -n "$db_created" ]; then pg_admin "DROP DATABASE IF EXISTS ${db_name} WITH (FORCE)" || say "could not drop database ${db_name}" >&2; fi
  if [ "${SCALE_OUT_KEEP:-}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
  if [ "$status" = 0 ]; then say "passed in $(( $(date +%s) - started )) s"; else say "FAILED (exit $status) after $(( $(date +%s) - started )) s" >&2; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Four free ports on 127.0.0.1: three instances and nginx.
read -r port1 port2 port3 proxy_port < <(node -e '
  const net = require("node:net");
  const servers = [0, 1, 2, 3].map(() => net.createServer());
  Promise.all(servers.map((s) => new Promise((ok) => s.listen(0, "127.0.0.1", ok)))).then(() => {
    console.log(servers.map((s) => s.address().port).join(" "));
    servers.forEach((s) => s.close());
  });')

say "build (npm run build: skipped when the sources are unchanged)"
npm run -s build

say "database ${db_name} on ${pg_server_url%/*}"
db_created=1
pg_admin "CREATE DATABASE ${db_name}"

# The same settings on every instance: one database, one Redis, one cron secret; behind one proxy hop.
secret() { node -e 'console.log(require("node:crypto").randomBytes(+process.argv[1]).toString("hex"))' "$1"; }
cron_secret=$(secret 24)
export NODE_ENV=production
export DATABASE_URL="$db_url"
export REDIS_URL="$redis_url"
export CRON_SECRET="$cron_secret"
export WEBHOOKS_SECRET_KEY="$(secret 32)"      # sealing keys: the same on every instance, or one cannot
export TWO_FACTOR_SECRET_KEY="$(secret 32)"    # open what another sealed
export TRUST_PROXY=true
export HOST=127.0.0.1
export LOG_LEVEL=warn
export DB_POOL_SIZE=5                          # 3 instances × (5 + 1 LISTEN connection), far below max_connections
export SHUTDOWN_TIMEOUT_MS=5000
export REQUIRE_EMAIL_VERIFICATION=false        # no SMTP here: signups get their session at once
export WEBHOOKS_ALLOW_PRIVATE=true             # the cron flow's webhook receiver listens on 127.0.0.1
export RATE_LIMIT_SCOPES="tasks:read=30,tasks:write=500,tasks:delete=100"   # small, so the shared limit is reached
export SIGNUP_MAX_PER_IP=100000                # every flow signs up from 127.0.0.1, on a Redis whose address counters CI's tests filled this hour
export DATA_DIR="$work/data" UPLOAD_DIR="$work/uploads"
unset CRON_INTERVAL_SECONDS                    # cron runs only when the route is called

# Started at once: the first to take the migrations' advisory lock applies them, the others wait for
# it and find nothing left to apply.
i=0
for port in "$port1" "$port2" "$port3"; do
  i=$((i + 1))
  PORT="$port" node --enable-source-maps dist/main.js >"$work/instance-$i.log" 2>&1 &
  instance_pids+=("$!")
done
say "instances: pids ${instance_pids[*]} on ports $port1 $port2 $port3"

mkdir -p "$work/nginx/client_body" "$work/nginx/proxy" "$work/nginx/fastcgi" "$work/nginx/uwsgi" "$work/nginx/scgi"
# As root, nginx's workers would switch to `nobody`, who cannot write in this private directory.
user_line=""
if [ "$(id -u)" = 0 ]; then user_line="user $(id -un) $(id -gn);"; fi
cat >"$work/nginx.conf" <<EOF
# Written by scripts/scale-out/run.sh: the three instances behind one address, round robin.
${user_line}
worker_processes 1;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path ${work}/nginx/client_body;
    proxy_temp_path ${work}/nginx/proxy;
    fastcgi_temp_path ${work}/nginx/fastcgi;
    uwsgi_temp_path ${work}/nginx/uwsgi;
    scgi_temp_path ${work}/nginx/scgi;
    log_format upstream '\$remote_addr "\$request" \$status upstream=\$upstream_addr \$request_time';
    access_log ${work}/nginx-access.log upstream;

    upstream platform {
        server 127.0.0.1:${port1};
        server 127.0.0.1:${port2};
        server 127.0.0.1:${port3};
        keepalive 32;                   # the server keeps idle connections 65 s, longer than nginx's 60 s
    }
    # A WebSocket upgrade passes Upgrade/Connection on; any other request keeps its upstream connection alive.
    map \$http_upgrade \$connection_upgrade {
        default upgrade;
        ''      '';
    }
    server {
        listen 127.0.0.1:${proxy_port};
        client_max_body_size 100m;
        # Which instance answered (shown by the smoke script; not needed in production).
        add_header X-Upstream \$upstream_addr always;

        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host \$http_host;
        proxy_set_header X-Forwarded-Host \$http_host;
        proxy_set_header X-Forwarded-Proto \$scheme;
        proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;   # TRUST_PROXY: the server takes the last entry
        proxy_request_buffering off;
        proxy_read_timeout 120s;

        location / {
            proxy_pass http://platform;
        }
        # GraphQL: WebSocket subscriptions (graphql-transport-ws) and GraphQL over SSE, unbuffered.
        location = /graphql {
            proxy_pass http://platform;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
        # Server-Sent Events of entities (/api/v1/<entity>/events): unbuffered, long-lived.
        location ~ ^/api/v1/[^/]+/events\$ {
            proxy_pass http://platform;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
    }
}
EOF
"$nginx_bin" -t -q -e "$work/nginx-error.log" -p "$work" -c "$work/nginx.conf"
"$nginx_bin" -e "$work/nginx-error.log" -p "$work" -c "$work/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
say "nginx: pid $nginx_pid on 127.0.0.1:${proxy_port}"

# Readiness of each instance (database and Redis answer), then of the proxy.
deadline=$(( $(date +%s) + 120 ))
for port in "$port1" "$port2" "$port3" "$proxy_port"; do
  until curl -sf -o /dev/null "http://127.0.0.1:${port}/readyz"; do
    for pid in "${instance_pids[@]}" "$nginx_pid"; do kill -0 "$pid" 2>/dev/null || fail "process $pid exited before it was ready"; done
    [ "$(date +%s)" -lt "$deadline" ] || fail "127.0.0.1:${port}/readyz did not answer 200 within 120 s"
    sleep 0.3
  done
done
say "ready after $(( $(date +%s) - started )) s; smoke flows through http://127.0.0.1:${proxy_port} only"

SCALE_OUT_URL="http://127.0.0.1:${proxy_port}" \
SCALE_OUT_INSTANCES="127.0.0.1:${port1},127.0.0.1:${port2},127.0.0.1:${port3}" \
SCALE_OUT_CRON_SECRET="$cron_secret" \
SCALE_OUT_RATE_LIMIT=30 \
  npx tsx scripts/scale-out/smoke.ts

for pid in "${instance_pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "instance $pid is no longer running after the smoke flows"; done
