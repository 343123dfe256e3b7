# paygate: one image, one binary. Build stage compiles the native modules (better-sqlite3, argon2)
# and the TypeScript; the runtime stage carries only production dependencies and dist/.
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
RUN npm run build && npm prune --omit=dev

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production \
    DATABASE_URL=/data/paygate.db \
    WALLET_KEYSTORE=/data/paygate.keystore.json \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/config ./config
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# An HTTPS proxy must stand in front and expose only /v1 (see README, "Network exposure").
ENTRYPOINT ["node", "bin/run.js"]
CMD ["serve"]
