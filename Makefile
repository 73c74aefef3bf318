GO ?= go
# TEST_TIMEOUT bounds the whole test run; end-to-end tests start dev servers.
TEST_TIMEOUT ?= 45m
TEMPORAL_ADDRESS ?= 127.0.0.1:7233
TEMPORAL_UI_PORT ?= 8233
TEMPORAL_DB ?= .cache/temporal.db

# Linters, run at pinned versions through the module proxy.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
WORKFLOWCHECK ?= go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0

# VERSION and COMMIT are stamped into both binaries (internal/version) by
# build and into the image by image: git describe, or 0.1.0-dev outside a
# git checkout. Set them to stamp others: make build VERSION=0.1.0.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
VERSION_PKG = github.com/planmode/planmode/internal/version
LDFLAGS = -X $(VERSION_PKG).version=$(VERSION) -X $(VERSION_PKG).commit=$(COMMIT)
# IMAGE is the tag image builds; CONTAINER the engine that builds it.
IMAGE ?= planmode:$(VERSION)
CONTAINER ?= docker

.PHONY: test vet lint fuzz deps sandbox build image install-temporal dev-server demo bench

# test runs every test with the race detector. It is the command CI runs.
test: sandbox vet
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...

vet:
	$(GO) vet ./...

# fuzz runs every fuzz target for FUZZTIME each (their seed corpora in
# testdata/fuzz also run as ordinary tests in make test). The targets are
# the Fuzz functions go test -list finds in each package with tests.
FUZZTIME ?= 30s
fuzz:
	@set -e; for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
		out=$$($(GO) test -list '^Fuzz' $$pkg); \
		for f in $$(printf '%s\n' "$$out" | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 1s $$pkg; \
		done; \
	done

# lint checks that go.mod is tidy, formatting, staticcheck's findings and the workflow's
# determinism (workflowcheck).
lint:
	@$(GO) mod tidy -diff >/dev/null || { echo 'go mod tidy changes go.mod or go.sum: run it and commit the result'; $(GO) mod tidy -diff; exit 1; }
	@bad=$$(git ls-files '*.go' | xargs gofmt -l); if [ -n "$$bad" ]; then echo "gofmt needed: $$bad"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(WORKFLOWCHECK) ./workflows/...

# deps installs what the whole suite needs on a bare machine (root and
# apt-get for chromium and docker-compose); tests that need a missing one
# skip outside CI.
deps:
	./scripts/install-deps.sh

# sandbox installs bubblewrap, which isolates the commands plans run,
# when it is missing (root and apt-get), and builds the Temporal CLI.
sandbox:
	@./scripts/install-deps.sh sandbox

# build writes bin/planmode (the CLI) and bin/planmode-worker, stamped
# with VERSION and COMMIT (planmode version, planmode-worker --version).
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/planmode ./starter
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/planmode-worker ./worker

# image builds the production image (Dockerfile) tagged IMAGE, passing
# VERSION and COMMIT as build arguments: .git is not in the build context.
# It prints the command it runs.
image:
	$(CONTAINER) build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t $(IMAGE) .

# install-temporal builds the Temporal CLI v1.9.1 (Temporal Server 1.32,
# Web UI 2.54) into .cache/bin/temporal: client commands and the dev server.
install-temporal:
	@./scripts/install-temporal.sh

# dev-server runs a Temporal dev server with planmode's search attributes on
# $(TEMPORAL_ADDRESS), the Web UI on $(TEMPORAL_UI_PORT), state in $(TEMPORAL_DB).
dev-server: install-temporal
	$(GO) run ./scripts/devserver -address $(TEMPORAL_ADDRESS) -ui-port $(TEMPORAL_UI_PORT) -db $(TEMPORAL_DB)

# demo runs a plan end to end with the offline model: a dev server, the
# worker on a copy of demo/workspace, and the CLI. From a terminal it keeps
# them running for the Web UI until Ctrl-C; DEMO_FLAGS=-keep=false ends at once.
demo: sandbox
	$(GO) run ./scripts/demo $(DEMO_FLAGS)

# bench measures whole plans on a dev server of its own with the offline
# model and prints one table (docs/benchmarks.md, "make bench"): about 10
# to 15 minutes; BENCH_FLAGS=-quick takes a minute or two, -only
# history,latency picks sections, -json out.json keeps the rows.
bench: install-temporal
	$(GO) run ./scripts/bench $(BENCH_FLAGS)
