# Node.js 26, the current LTS line, on Debian 13 (trixie). Every npm install runs with install scripts off:
# nothing the gateway needs runs one, and a dependency's script (such as a telemetry package's) never runs
# in the build or in the image.

# Build stage: compile TypeScript with the dev dependencies.
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

# Run stage: production dependencies, the compiled code, pages and scripts; a non-root user.
FROM node:26-trixie-slim
ENV NODE_ENV=production PORT=8080 NPM_CONFIG_IGNORE_SCRIPTS=true NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY views ./views
COPY public ./public
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# exec form: the node process gets SIGTERM itself and finishes requests in flight. The portal's password
# hash is printed by the same image:
#   printf '%s' 'a long passphrase' | docker run --rm -i payment-gateway node dist/tools/hash-password.js
CMD ["node", "--min-semi-space-size=64", "--max-semi-space-size=64", "dist/main.js"]
