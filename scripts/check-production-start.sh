#!/usr/bin/env bash
# The Dockerfile's steps, run by hand (CI cannot build images): the project's files (tracked and new,
# not ignored: the build context) in a temporary folder, a production install without dev packages,
# the build, then the server as `node dist/main.js` on the embedded database: it must answer /healthz
# and stop on SIGTERM, and serve the console it built. Catches a run-time import of a dev dependency and a build that needs one.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
server=""
cleanup() {
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf - | tar -xf - -C "$work/"
cd "$work"
NODE_ENV=production npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
npm run -s build

healthy() { node -e "fetch('http://127.0.0.1:$port/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; }
port="$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")"
started=$(date +%s)
NODE_ENV=production HOST=127.0.0.1 PORT="$port" DATA_DIR="$work/.data" UPLOAD_DIR="$work/.data/uploads" LOG_LEVEL=warn \
  node --enable-source-maps dist/main.js &
server=$!
for _ in $(seq 1 240); do
  healthy && break
  kill -0 "$server" 2>/dev/null || { echo "the production server exited before answering"; exit 1; }
  sleep 0.5
done
healthy || { echo "the production server did not answer /healthz within 120 s"; exit 1; }
echo "production install answered /healthz after $(( $(date +%s) - started )) s"
# The console is built by the production install too, and served.
node -e "
const base = 'http://127.0.0.1:$port';
(async () => {
  const page = await fetch(base + '/console');
  const html = await page.text();
  const assets = [...html.matchAll(/\/console\/assets\/[\w.-]+/g)].map((m) => m[0]);
  if (page.status !== 200 || assets.length !== 2) throw new Error('/console: ' + page.status + ' with ' + assets.length + ' assets');
  for (const asset of assets) if ((await fetch(base + asset)).status !== 200) throw new Error(asset + ' is not served');
})().catch((error) => { console.error('the production console: ' + error.message); process.exit(1); });
"
echo "production install serves the console"
kill -TERM "$server"
for _ in $(seq 1 30); do kill -0 "$server" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$server" 2>/dev/null; then echo "the production server did not stop on SIGTERM"; exit 1; fi
server=""
