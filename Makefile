GO ?= go

.PHONY: test vet

# test runs every test. It is the command CI runs.
test: vet
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...
