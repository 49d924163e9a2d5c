# The platform server, built the way README "Deployment" describes and as verified by hand on a clone:
# a production install (no dev packages), the esbuild transpile to dist/, run as an unprivileged user.
#   docker build -t platform .
#   docker run -p 3000:3000 -v platform-data:/data -v platform-uploads:/uploads platform
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    UPLOAD_DIR=/uploads \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=32768 \
    NODE_OPTIONS="--max-old-space-size=512 --max-semi-space-size=16"

WORKDIR /app

# Dependencies first, so that this layer is reused while only the sources change. --ignore-scripts: the
# Prisma client is committed under src/generated (no `prisma generate`), and no install script downloads
# anything (Prisma's native engines are not used: migrations run on its WebAssembly engine).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY . .
# src/ → dist/ with esbuild (about a second); the stamp it writes makes `npm start` a no-op here.
RUN npm run build \
 && mkdir -p /data /uploads \
 && chown node:node /data /uploads

USER node
# PGlite's files (DATA_DIR, unused with DATABASE_URL) and the local storage driver's files (UPLOAD_DIR).
VOLUME ["/data", "/uploads"]
EXPOSE 3000

# Liveness: /healthz answers while the process serves. Readiness for a load balancer is /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node itself, not npm (one process less): it receives SIGTERM from `docker stop` and finishes the
# requests in flight within SHUTDOWN_TIMEOUT_MS. Pending migrations are applied at start.
CMD ["node", "--enable-source-maps", "dist/main.js"]
