# svc-apiserver: the API server image; PostgreSQL runs beside it (see docker-compose.yml).
# Node 24: the LTS line with the longest support ahead of it (security fixes until April 2028).
# The tests run on Node 20 on the project's machine and on 22 and 24 in CI (README).

# Build stage: every dependency (esbuild compiles the TypeScript), nothing of it kept.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY bin ./bin
COPY server ./server
COPY machinery ./machinery
COPY plugins ./plugins
COPY resources ./resources
COPY storage ./storage
COPY admission ./admission
COPY auth ./auth
COPY controllers ./controllers
COPY scripts ./scripts
# dist/ gets the compiled code and the files it reads beside it (.proto files, package.json).
RUN node scripts/build.mjs

# Runtime stage: production dependencies only (no compiler, no test tools, no embedded
# PostgreSQL: the database is a service of its own), run as an unprivileged user.
FROM node:24-bookworm-slim
WORKDIR /app
# jemalloc, preloaded into the server as `npm start` does (README, benchmark): it gives the pages
# of freed memory back to the system, where glibc's malloc keeps what a thousand TLS streams
# freed for the life of the process. Its background thread purges freed pages a second after
# they are freed, whether or not the server is still allocating.
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev --omit=optional && npm cache clean --force
COPY --from=build /app/dist ./dist
# The image's own `node` user (uid 1000); /data (kubeconfig, certificates) and /pki (a certificate
# directory replicas share) are owned by it, so named volumes mounted there are too.
RUN mkdir -p /data /pki && chown node:node /data /pki
USER node
ENV LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true,dirty_decay_ms:1000
VOLUME ["/data", "/pki"]
EXPOSE 6443
ENTRYPOINT ["node", "dist/bundle/server.js", "--data-dir", "/data", "--bind-address", "0.0.0.0"]
