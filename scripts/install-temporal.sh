#!/usr/bin/env bash
# install-temporal.sh makes the Temporal CLI v1.5.1 (Server 1.29) available at
# .cache/bin/temporal in the repository and prints its path on stdout.
#
# `install-temporal.sh server` instead builds planmode's own dev server
# (scripts/temporal-server: Temporal Server 1.32 with the Web UI 2.54, which
# takes the CLI's `server start-dev` flags) into .cache/bin/temporal-server
# and prints its path; see install_server below.
#
# For the CLI, it takes, in order:
#   1. $PLANMODE_TEMPORAL_BIN when it is set and executable (used as is);
#   2. .cache/bin/temporal when it is already there and the right version;
#   3. ~/go/bin/temporal or a `temporal` on PATH when it is the right version
#      (linked into the cache);
#   4. otherwise `GOBIN=.cache/bin go install github.com/temporalio/cli/cmd/temporal@v1.5.1`.
# It never downloads anything but that Go module. Running it again is cheap.
set -euo pipefail

CLI_VERSION="1.5.1"
CLI_SERVER_SERIES="1.29" # the server bundled in that CLI
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_BIN="${ROOT}/.cache/bin"
TARGET="${CACHE_BIN}/temporal"

log() { echo "install-temporal: $*" >&2; }

SERVER_SRC="${ROOT}/scripts/temporal-server"
SERVER_TARGET="${CACHE_BIN}/temporal-server"
SERVER_STAMP="${SERVER_TARGET}.stamp"
DEV_SERVER_SERIES="1.32" # the server the project builds (scripts/temporal-server)

# server_stamp prints a digest of what the server binary is built from: its
# module's go.mod, go.sum and non-test Go files, and the Go version.
server_stamp() {
	(
		cd "${SERVER_SRC}"
		go env GOVERSION
		find . -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) ! -name '*_test.go' -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum
	) | sha256sum | cut -d' ' -f1
}

# server_current reports whether the built server is there, runs, and was
# built from the sources as they are now.
server_current() {
	[[ -x "${SERVER_TARGET}" && -f "${SERVER_STAMP}" ]] || return 1
	[[ "$(cat "${SERVER_STAMP}")" == "$1" ]] || return 1
	[[ "$("${SERVER_TARGET}" --version 2>/dev/null)" == *"Server ${DEV_SERVER_SERIES}."* ]]
}

# install_server builds scripts/temporal-server into .cache/bin unless the
# binary there was built from the same sources, and prints its path. The
# build runs in the server's own module, so planmode's go.mod never carries
# the server's dependencies; a cold build takes several minutes.
install_server() {
	local stamp tmp
	command -v go >/dev/null 2>&1 || { log "go is needed to build ${SERVER_TARGET}"; return 1; }
	stamp="$(server_stamp)"
	if server_current "${stamp}"; then
		echo "${SERVER_TARGET}"
		return 0
	fi
	mkdir -p "${CACHE_BIN}"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"${CACHE_BIN}/.install.lock"
		flock 9
		if server_current "${stamp}"; then
			echo "${SERVER_TARGET}"
			return 0
		fi
	fi
	log "building ${SERVER_SRC} into ${SERVER_TARGET} (a cold build takes several minutes)"
	tmp="$(mktemp "${CACHE_BIN}/.temporal-server.XXXXXX")"
	if ! (cd "${SERVER_SRC}" && go build -trimpath -ldflags='-s -w' -o "${tmp}" .) >&2; then
		rm -f "${tmp}"
		return 1
	fi
	if [[ "$("${tmp}" --version 2>/dev/null)" != *"Server ${DEV_SERVER_SERIES}."* ]]; then
		log "built ${SERVER_SRC} but it does not report Server ${DEV_SERVER_SERIES}"
		rm -f "${tmp}"
		return 1
	fi
	mv -f "${tmp}" "${SERVER_TARGET}"
	echo "${stamp}" >"${SERVER_STAMP}"
	echo "${SERVER_TARGET}"
}

case "${1:-}" in
server)
	install_server
	exit
	;;
"") ;;
*)
	log "usage: $0 [server]"
	exit 2
	;;
esac

# right_version reports whether the binary $1 is CLI ${CLI_VERSION} with a
# ${CLI_SERVER_SERIES} server. A binary built by `go install` reports its CLI
# version as 0.0.0-DEV, so the module version Go recorded in it counts too.
right_version() {
	local bin="$1" out
	[[ -x "$bin" ]] || return 1
	out="$("$bin" --version 2>/dev/null)" || return 1
	[[ "$out" == *"Server ${CLI_SERVER_SERIES}."* ]] || return 1
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
	log "built ${TARGET} but it does not report CLI ${CLI_VERSION} / Server ${CLI_SERVER_SERIES}"
	exit 1
fi
echo "${TARGET}"
