# svc-apiserver: the API server image; PostgreSQL runs beside it (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY plugins ./plugins
COPY resources ./resources
COPY storage ./storage
COPY admission ./admission
COPY auth ./auth
COPY controllers ./controllers
COPY scripts ./scripts
# Compiled once here: the container starts plain JavaScript.
RUN node scripts/build.mjs
VOLUME ["/data"]
EXPOSE 6443
ENTRYPOINT ["node", "dist/bin/server.js", "--data-dir", "/data", "--bind-address", "0.0.0.0"]
