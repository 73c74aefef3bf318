#!/usr/bin/env bash
# install-temporal.sh builds the Temporal CLI v1.9.1 (Temporal Server 1.32,
# Web UI 2.54) into .cache/bin/temporal and prints its path on stdout. The
# one binary runs client commands (temporal workflow …, temporal operator …)
# and the dev server (temporal server start-dev).
#
# $PLANMODE_TEMPORAL_BIN, when set and executable, is used as is. Otherwise
# the CLI is built from scripts/temporal-cli, a module of its own that
# supplies the nested module the CLI's release leaves out (its upstream
# copy in third_party/temporalio/cli/cliext; see scripts/temporal-cli's
# README.md), so planmode's go.mod never carries the CLI's dependencies.
# It builds again only when that module's sources or Go change: running it
# again takes milliseconds, a cold build a few minutes. It downloads nothing
# but Go modules.
set -euo pipefail

CLI_VERSION="1.9.1"
SERVER_SERIES="1.32" # the server that CLI carries
VERSION_VAR="github.com/temporalio/cli/internal/temporalcli.Version"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="${ROOT}/scripts/temporal-cli"
# CLIEXT is the copy of the CLI's nested module that SRC's go.mod replaces
# github.com/temporalio/cli/cliext with.
CLIEXT="${ROOT}/third_party/temporalio/cli/cliext"
CACHE_BIN="${ROOT}/.cache/bin"
TARGET="${CACHE_BIN}/temporal"
STAMP="${TARGET}.stamp"

log() { echo "install-temporal: $*" >&2; }

if [[ $# -gt 0 ]]; then
	log "usage: $0"
	exit 2
fi

if [[ -n "${PLANMODE_TEMPORAL_BIN:-}" ]]; then
	if [[ -x "${PLANMODE_TEMPORAL_BIN}" ]]; then
		echo "${PLANMODE_TEMPORAL_BIN}"
		exit 0
	fi
	log "PLANMODE_TEMPORAL_BIN=${PLANMODE_TEMPORAL_BIN} is not executable; ignoring it"
fi

# right_version reports whether the binary $1 says it is CLI ${CLI_VERSION}
# carrying Server ${SERVER_SERIES}.
right_version() {
	local out
	out="$("$1" --version 2>/dev/null)" || return 1
	[[ "$out" == *"version ${CLI_VERSION} "* && "$out" == *"Server ${SERVER_SERIES}."* ]]
}

# Without Go nothing can be built: a binary already there serves if it says
# the right version.
if ! command -v go >/dev/null 2>&1; then
	if [[ -x "${TARGET}" ]] && right_version "${TARGET}"; then
		echo "${TARGET}"
		exit 0
	fi
	log "go is needed to build ${TARGET}"
	exit 1
fi

# stamp prints a digest of what the binary is built from: the module's
# go.mod and go.sum, cliext's files, the version stamped in, and Go's
# version.
stamp() {
	(
		cd "${SRC}"
		go env GOVERSION
		echo "${CLI_VERSION}"
		for dir in "${SRC}" "${CLIEXT}"; do
			(cd "${dir}" && find . -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) ! -name '*_test.go' -print0 |
				LC_ALL=C sort -z | xargs -0 sha256sum)
		done
	) | sha256sum | cut -d' ' -f1
}

# current reports whether the binary is there, says the right version, and
# was built from the sources as they are now.
current() {
	[[ -x "${TARGET}" && -f "${STAMP}" && "$(cat "${STAMP}")" == "$1" ]] && right_version "${TARGET}"
}

want="$(stamp)"
if current "${want}"; then
	echo "${TARGET}"
	exit 0
fi

mkdir -p "${CACHE_BIN}"
# Test binaries run in parallel may all get here at once: one builds, the
# others wait and then find it.
if command -v flock >/dev/null 2>&1; then
	exec 9>"${CACHE_BIN}/.install.lock"
	flock 9
	if current "${want}"; then
		echo "${TARGET}"
		exit 0
	fi
fi

log "building the Temporal CLI v${CLI_VERSION} into ${TARGET} (a cold build takes a few minutes)"
tmp="$(mktemp "${CACHE_BIN}/.temporal.XXXXXX")"
trap 'rm -f "${tmp}"' EXIT
(cd "${SRC}" && go build -trimpath -ldflags="-s -w -X ${VERSION_VAR}=${CLI_VERSION}" \
	-o "${tmp}" github.com/temporalio/cli/cmd/temporal) >&2
if ! right_version "${tmp}"; then
	log "built the CLI but it does not say version ${CLI_VERSION} with Server ${SERVER_SERIES}: $("${tmp}" --version 2>&1 || true)"
	exit 1
fi
mv -f "${tmp}" "${TARGET}"
echo "${want}" >"${STAMP}"
echo "${TARGET}"
