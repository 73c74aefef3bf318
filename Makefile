GO ?= go
# TEST_TIMEOUT bounds the whole test run; end-to-end tests start dev servers.
TEST_TIMEOUT ?= 10m
TEMPORAL_ADDRESS ?= 127.0.0.1:7233
TEMPORAL_UI_PORT ?= 8233
TEMPORAL_DB ?= .cache/temporal.db

.PHONY: test vet build install-temporal dev-server demo

# test runs every test. It is the command CI runs.
test: vet
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

vet:
	$(GO) vet ./...

# build writes bin/planmode (the CLI) and bin/planmode-worker.
build:
	$(GO) build -o bin/planmode ./starter
	$(GO) build -o bin/planmode-worker ./worker

# install-temporal puts the Temporal CLI v1.5.1 in .cache/bin and prints its path.
install-temporal:
	@./scripts/install-temporal.sh

# dev-server runs a Temporal dev server with planmode's search attributes on
# $(TEMPORAL_ADDRESS), the Web UI on $(TEMPORAL_UI_PORT), state in $(TEMPORAL_DB).
dev-server: install-temporal
	$(GO) run ./scripts/devserver -address $(TEMPORAL_ADDRESS) -ui-port $(TEMPORAL_UI_PORT) -db $(TEMPORAL_DB)

# demo runs a plan end to end with the offline model: a dev server, the
# worker on a copy of demo/workspace, and the CLI. From a terminal it keeps
# them running for the Web UI until Ctrl-C; DEMO_FLAGS=-keep=false ends at once.
demo: install-temporal
	$(GO) run ./scripts/demo $(DEMO_FLAGS)
