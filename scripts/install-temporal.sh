#!/usr/bin/env bash
# install-temporal.sh makes the Temporal CLI v1.5.1 (Server 1.29) available at
# .cache/bin/temporal in the repository and prints its path on stdout.
#
# It takes, in order:
#   1. $PLANMODE_TEMPORAL_BIN when it is set and executable (used as is);
#   2. .cache/bin/temporal when it is already there and the right version;
#   3. ~/go/bin/temporal or a `temporal` on PATH when it is the right version
#      (linked into the cache);
#   4. otherwise `GOBIN=.cache/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1`.
# It never downloads anything but that Go module. Running it again is cheap.
set -euo pipefail

CLI_VERSION="1.5.1"
SERVER_SERIES="1.29"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_BIN="${ROOT}/.cache/bin"
TARGET="${CACHE_BIN}/temporal"

log() { echo "install-temporal: $*" >&2; }

# right_version reports whether the binary $1 is CLI ${CLI_VERSION} with a
# ${SERVER_SERIES} server. A binary built by `go install` reports its CLI
# version as 0.0.0-DEV, so the module version Go recorded in it counts too.
right_version() {
	local bin="$1" out
	[[ -x "$bin" ]] || return 1
	out="$("$bin" --version 2>/dev/null)" || return 1
	[[ "$out" == *"Server ${SERVER_SERIES}."* ]] || return 1
	if [[ "$out" == *" ${CLI_VERSION} "* || "$out" == *"version ${CLI_VERSION}"* ]]; then
		return 0
	fi
	command -v go >/dev/null 2>&1 || return 1
	go version -m "$bin" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/temporalio/cli[[:space:]]+v${CLI_VERSION}([[:space:]]|$)"
}

if [[ -n "${PLANMODE_TEMPORAL_BIN:-}" ]]; then
	if [[ -x "${PLANMODE_TEMPORAL_BIN}" ]]; then
		echo "${PLANMODE_TEMPORAL_BIN}"
		exit 0
	fi
	log "PLANMODE_TEMPORAL_BIN=${PLANMODE_TEMPORAL_BIN} is not executable; ignoring it"
fi

if right_version "${TARGET}"; then
	echo "${TARGET}"
	exit 0
fi

mkdir -p "${CACHE_BIN}"
# Test binaries run in parallel may all get here at once: one installs, the
# others wait and then find it.
if command -v flock >/dev/null 2>&1; then
	exec 9>"${CACHE_BIN}/.install.lock"
	flock 9
	if right_version "${TARGET}"; then
		echo "${TARGET}"
		exit 0
	fi
fi

candidates=()
gobin="$(go env GOBIN 2>/dev/null || true)"
gopath="$(go env GOPATH 2>/dev/null || true)"
[[ -n "$gobin" ]] && candidates+=("${gobin}/temporal")
[[ -n "$gopath" ]] && candidates+=("${gopath%%:*}/bin/temporal")
candidates+=("${HOME}/go/bin/temporal")
if onpath="$(command -v temporal 2>/dev/null)"; then
	candidates+=("$onpath")
fi

for c in "${candidates[@]}"; do
	if right_version "$c"; then
		ln -sfn "$(readlink -f "$c")" "${TARGET}"
		log "using ${c}"
		echo "${TARGET}"
		exit 0
	fi
done

log "building the Temporal CLI v${CLI_VERSION} into ${CACHE_BIN} (takes a few minutes)"
rm -f "${TARGET}"
GOBIN="${CACHE_BIN}" go install "github.com/temporalio/cli/cmd/temporal@v${CLI_VERSION}" >&2
if ! right_version "${TARGET}"; then
	log "built ${TARGET} but it does not report CLI ${CLI_VERSION} / Server ${SERVER_SERIES}"
	exit 1
fi
echo "${TARGET}"
