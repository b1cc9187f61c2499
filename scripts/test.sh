#!/usr/bin/env bash
# The test command for reviewd:  ./scripts/test.sh
#
# 1. installs missing system tools (ffmpeg, clamav-daemon + clamav, chromium,
#    libxml2-utils for xmllint, which validates the review feed against its XSD)
#    via apt-get, as root or through sudo; otherwise warns and continues
#    (tests needing a missing tool skip with a message)
# 2. installs webtest/ node packages (playwright-core, axe-core; never a browser)
# 3. starts a private clamd with test-only signatures (scripts/clamd-test.sh)
# 4. runs gofmt -l, go vet ./..., then go test -count=1: under the race detector
#    (-race) every package except those in NORACE below, the rest without it
#
# Environment:
#   REVIEWD_TEST_FLAGS     extra flags appended to both `go test` runs (e.g. "-run Upload")
#   REVIEWD_SKIP_INSTALL=1 do not touch system packages
#   REVIEWD_TEST_TIMEOUT   go test's per-package timeout (default 30m): a hang
#                          detector, not a budget; a package that takes 5 minutes
#                          on a quiet machine takes 15 on one loaded many times over
#
# Exported to the tests (only when the tool is available):
#   REVIEWD_FFMPEG, REVIEWD_FFPROBE, REVIEWD_CHROMIUM, REVIEWD_WEBTEST_DIR, REVIEWD_XMLLINT,
#   REVIEWD_TEST_CLAMD=tcp:127.0.0.1:<port>
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

step() { printf '\n==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 ]]; }

# --- 1. system packages -----------------------------------------------------
missing=()
{ have ffmpeg && have ffprobe; } || missing+=(ffmpeg)
have clamd || missing+=(clamav-daemon)
have sigtool || missing+=(clamav)
have chromium || missing+=(chromium)
have xmllint || missing+=(libxml2-utils)

if ((${#missing[@]})); then
  if [[ ${REVIEWD_SKIP_INSTALL:-} == 1 ]]; then
    warn "missing packages (not installing, REVIEWD_SKIP_INSTALL=1): ${missing[*]}"
  else
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
      if command -v sudo >/dev/null && { sudo -n true 2>/dev/null || [[ -t 0 ]]; }; then
        sudo=(sudo)
      else
        sudo=(none)
      fi
    fi
    if [[ ${sudo[*]-} == none ]] || ! command -v apt-get >/dev/null; then
      warn "missing packages and cannot apt-get install them (need root or sudo): ${missing[*]}"
      warn "tests that need them will be skipped"
    else
      step "installing ${missing[*]}"
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
  fi
fi

# --- 2. tool locations for the tests ----------------------------------------
if have ffmpeg && have ffprobe; then
  REVIEWD_FFMPEG=$(command -v ffmpeg)
  REVIEWD_FFPROBE=$(command -v ffprobe)
  export REVIEWD_FFMPEG REVIEWD_FFPROBE
fi
if have xmllint; then
  REVIEWD_XMLLINT=$(command -v xmllint)
  export REVIEWD_XMLLINT
fi
if [[ -x /usr/bin/chromium ]]; then
  export REVIEWD_CHROMIUM=/usr/bin/chromium
elif have chromium; then
  REVIEWD_CHROMIUM=$(command -v chromium)
  export REVIEWD_CHROMIUM
fi

# --- 3. webtest node packages (playwright-core + axe-core, no browsers) -----
if have node && have npm; then
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  if ((node_major < 20)); then
    warn "node $(node --version) is too old for playwright-core (needs >= 20); browser tests will skip"
  else
    export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
    stamp=webtest/node_modules/.reviewd-installed-lock
    if [[ ! -f webtest/package-lock.json ]]; then
      step "npm install (webtest)"
      (cd webtest && npm install --no-audit --no-fund)
      cp webtest/package-lock.json "$stamp"
    elif ! cmp -s webtest/package-lock.json "$stamp"; then
      step "npm ci (webtest)"
      (cd webtest && npm ci --no-audit --no-fund)
      cp webtest/package-lock.json "$stamp"
    fi
    export REVIEWD_WEBTEST_DIR=$ROOT/webtest
  fi
else
  warn "node/npm not found; browser tests will skip"
fi

# --- 4. private clamd ---------------------------------------------------------
if have clamd; then
  # One clamd per checkout: a run in another checkout neither reuses nor stops it.
  REVIEWD_CLAMD_DIR=${REVIEWD_CLAMD_DIR:-${TMPDIR:-/tmp}/reviewd-clamd-$(id -u)-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)}
  export REVIEWD_CLAMD_DIR
  started_clamd=0 # read by the EXIT trap
  # shellcheck disable=SC2034
  if ! REVIEWD_TEST_CLAMD=$(scripts/clamd-test.sh status 2>/dev/null); then
    step "starting test clamd"
    REVIEWD_TEST_CLAMD=$(scripts/clamd-test.sh start)
    started_clamd=1
  fi
  export REVIEWD_TEST_CLAMD
  # Only stop a clamd this run started (leave a manually started one alone).
  trap 'if ((started_clamd)); then scripts/clamd-test.sh stop; fi' EXIT
  trap 'exit 130' INT TERM
else
  warn "clamd not found; virus-scan tests will skip"
fi

# --- 5. Go checks -------------------------------------------------------------
step "environment"
env | grep '^REVIEWD_' | sort >&2 || true

step "gofmt -l"
unformatted=$(find . -name '*.go' -not -path './webtest/node_modules/*' -not -path './.git/*' -print0 |
  xargs -0 -r gofmt -l)
if [[ -n $unformatted ]]; then
  printf '%s\n' "$unformatted" >&2
  warn "the files above need gofmt (run: gofmt -w <file>)"
  exit 1
fi

step "go vet ./..."
go vet ./...

# Every package runs under the race detector (its goroutines: the server, jobs,
# the store's pools, background reads, outbound and mail clients; a new package
# is included by default) except these, which start no goroutines of their own
# and would only pay the detector's cost: the CLI tests drive separately built
# binaries and Chromium, media decodes images and video, mailevents parses
# provider events, platform maps store platforms' answers.
NORACE='^reviewd/app/(cli|media|mailevents|platform/.*)$'

# Packages with tests, split by NORACE.
tested=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | sed '/^$/d')
race_pkgs=$(grep -Ev "$NORACE" <<<"$tested" || true)
plain_pkgs=$(grep -E "$NORACE" <<<"$tested" || true)

timeout=${REVIEWD_TEST_TIMEOUT:-30m}
status=0
if [[ -n $race_pkgs ]]; then
  step "go test -race -count=1 -timeout $timeout ${REVIEWD_TEST_FLAGS:-} <$(wc -l <<<"$race_pkgs") packages>"
  # shellcheck disable=SC2086 # word-split on purpose (flags, package list)
  go test -race -count=1 -timeout "$timeout" ${REVIEWD_TEST_FLAGS:-} $race_pkgs || status=$?
fi
if [[ -n $plain_pkgs ]]; then
  step "go test -count=1 -timeout $timeout ${REVIEWD_TEST_FLAGS:-} <$(wc -l <<<"$plain_pkgs") packages: no goroutines of their own>"
  # shellcheck disable=SC2086
  go test -count=1 -timeout "$timeout" ${REVIEWD_TEST_FLAGS:-} $plain_pkgs || status=$?
fi
if [[ ${REVIEWD_FUZZTIME:-10s} != 0 ]]; then # REVIEWD_FUZZTIME=0 skips
  step "fuzz targets, ${REVIEWD_FUZZTIME:-10s} each"
  scripts/fuzz.sh "${REVIEWD_FUZZTIME:-10s}" || status=$?
fi
exit "$status"
