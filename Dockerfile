# planmode's production image: the worker (entrypoint) and the operator CLI
# `planmode`, built statically and run as a non-root user.
#
#   make image                                        # slim, stamped with git describe
#   docker build -t planmode .                       # slim: no toolchain
#   docker build -t planmode:toolchain --target toolchain .   # plus go, make, git
#
# .git is not in the build context, so the version and commit that
# `planmode version` prints come in as build arguments (make image passes
# them): --build-arg VERSION=$(git describe --tags --always --dirty)
# --build-arg COMMIT=$(git rev-parse --short=12 HEAD).
#   docker run --rm -e PLANMODE_TEMPORAL_ADDRESS=temporal.example:7233 planmode
#   docker run --rm --entrypoint planmode planmode list --address temporal.example:7233
#
# The worker runs every command in bubblewrap, which needs user namespaces
# and a /proc it may mount: Docker's default seccomp and AppArmor profiles
# and its masked /proc refuse both, so run the worker with
#   --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#   --security-opt systempaths=unconfined
# (or a seccomp profile that allows unshare and clone with CLONE_NEWUSER).
# Otherwise the worker refuses to run commands and says so; setting
# PLANMODE_TOOLS_SANDBOX=none runs them unisolated, with the worker's secrets.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Declared after the download, so that a new version reuses its layer.
ARG VERSION=0.1.0-dev
ARG COMMIT=unknown
RUN LDFLAGS="-s -w -X github.com/planmode/planmode/internal/version.version=${VERSION} -X github.com/planmode/planmode/internal/version.commit=${COMMIT}" \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$LDFLAGS" -o /out/planmode-worker ./worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "$LDFLAGS" -o /out/planmode ./starter

# slim runs plans whose commands need nothing beyond coreutils (ls, cat,
# echo); ca-certificates is for TLS to an LLM provider and to Temporal Cloud,
# bubblewrap is the command sandbox.
FROM debian:bookworm-slim AS slim
ARG VERSION=0.1.0-dev
ARG COMMIT=unknown
LABEL org.opencontainers.image.title="planmode" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates bubblewrap \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 planmode \
 && useradd --system --uid 10001 --gid planmode --home-dir /home/planmode --create-home --shell /usr/sbin/nologin planmode \
 && mkdir -p /workspace /outputs \
 && chown planmode:planmode /workspace /outputs
COPY --from=build /out/planmode-worker /out/planmode /usr/local/bin/
# The demo workspace, so that a fresh stack has something to plan on; mount
# a volume or a folder at /workspace for real work.
COPY --chown=planmode:planmode demo/workspace/ /workspace/
USER planmode:planmode
WORKDIR /workspace
ENV PLANMODE_WORKSPACE_ROOT=/workspace \
    PLANMODE_LOG_FORMAT=json
ENTRYPOINT ["planmode-worker"]

# toolchain adds what the default tools.allowCommands name (go, make, git),
# so that plans can build and test Go code.
FROM slim AS toolchain
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends make git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/go /usr/local/go
# Commands inherit none of the worker's environment but PATH and LANG:
# PLANMODE_TOOLS_ENV declares theirs (no toolchain downloads, as for the
# worker).
ENV PATH=/usr/local/go/bin:$PATH \
    GOTOOLCHAIN=local \
    GOCACHE=/home/planmode/.cache/go-build \
    GOPATH=/home/planmode/go \
    PLANMODE_TOOLS_ENV=GOTOOLCHAIN=local
USER planmode:planmode

# The default target is the slim image.
FROM slim
