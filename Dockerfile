# paygate: one image, one binary. The build stage compiles the native modules (better-sqlite3,
# argon2), the TypeScript and the web pages' bundles; the runtime stage carries only production dependencies and dist/.
# .ci/run performs the same build and start steps on the CI machine (no Docker engine there).
FROM node:20.20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY commands ./commands
COPY config ./config
COPY src ./src
# The web pages: TypeScript under web/, bundled by scripts/build-web.ts into dist/web.
COPY scripts ./scripts
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:20.20-bookworm-slim
# A dedicated unprivileged user owns the data volume; nothing in the image runs as root.
RUN groupadd --system --gid 10001 paygate \
 && useradd --system --uid 10001 --gid paygate --home-dir /data --shell /usr/sbin/nologin paygate \
 && mkdir -p /data && chown paygate:paygate /data && chmod 0700 /data
ENV NODE_ENV=production \
    DATABASE_URL=/data/paygate.db \
    WALLET_KEYSTORE=/data/paygate.keystore.json \
    HOST=0.0.0.0 \
    PORT=8080 \
    ADMIN_HOST=127.0.0.1 \
    ADMIN_PORT=9090 \
    CABINET_HOST=127.0.0.1 \
    CABINET_PORT=9091
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The commands' manifest the build wrote: each command start imports only its own command.
COPY --from=build /app/oclif.manifest.json ./oclif.manifest.json
COPY --from=build /app/bin ./bin
COPY --from=build /app/config ./config
COPY deploy/healthcheck.mjs ./deploy/healthcheck.mjs
USER paygate
# The database and the keystore. Back the database up with `paygate backup` (online), the keystore once.
VOLUME ["/data"]
# /v1 only; put the HTTPS proxy of deploy/nginx in front. The admin listener (/healthz, /readyz,
# /metrics) stays on the container's loopback unless ADMIN_HOST=0.0.0.0 is set for a scraper on
# a private network; never publish it. The merchant cabinet (CABINET_PORT) likewise: owners reach
# it through a VPN or an authenticating proxy of the operator's (CABINET_HOST=0.0.0.0 for that).
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# The passphrase: mount a secret file and set WALLET_PASSPHRASE_FILE=/run/secrets/paygate_passphrase.
# `docker stop` sends SIGTERM: in-flight requests finish, workers stop at a safe point, exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--max-old-space-size=1024", "bin/run.js"]
CMD ["serve"]
