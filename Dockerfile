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
COPY tsconfig.json ./
VOLUME ["/data"]
EXPOSE 6443
ENTRYPOINT ["npx", "tsx", "bin/server.ts", "--data-dir", "/data", "--bind-address", "0.0.0.0"]
