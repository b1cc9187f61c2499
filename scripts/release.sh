#!/usr/bin/env bash
# Builds the release: static reviewd binaries for linux/amd64 and linux/arm64 with
# SHA-256 checksums.
#
#   git tag -a v1.2.0 -m "reviewd 1.2.0" && ./scripts/release.sh
#   ./scripts/release.sh 1.2.0-rc1        # an explicit version, no tag needed
#
# Output in dist/: reviewd-<version>-linux-<arch> and SHA256SUMS (check with
# `sha256sum -c SHA256SUMS`). The version and commit are linked into the binaries
# (`reviewd version`, GET /healthz). Refuses a tree with uncommitted changes unless
# RELEASE_ALLOW_DIRTY=1. Needs only the Go toolchain (pure Go, CGO_ENABLED=0).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

die() { printf 'release: %s\n' "$*" >&2; exit 1; }

version=${1:-}
if [[ -z $version ]]; then
  tag=$(git describe --tags --exact-match 2>/dev/null) || die "HEAD has no tag; tag it (git tag -a v1.2.0) or give a version"
  version=${tag#v}
fi
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || die "version $version is not MAJOR.MINOR.PATCH[-suffix]"

commit=$(git rev-parse --short=12 HEAD)
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  [[ ${RELEASE_ALLOW_DIRTY:-} == 1 ]] || die "uncommitted changes (RELEASE_ALLOW_DIRTY=1 to build anyway)"
  commit+="-dirty"
fi
grep -q "^## \[$version\]" CHANGELOG.md || printf 'release: warning: CHANGELOG.md has no section [%s]\n' "$version" >&2

out=dist
rm -f "$out"/reviewd-"$version"-linux-* "$out"/SHA256SUMS
mkdir -p "$out"
for arch in amd64 arm64; do
  bin=$out/reviewd-$version-linux-$arch
  printf 'building %s\n' "$bin" >&2
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=false \
    -ldflags "-s -w -X reviewd/app.Version=$version -X reviewd/app.Commit=$commit" -o "$bin" .
  go version -m "$bin" | grep -q 'CGO_ENABLED=0' || die "$bin is not a static (CGO_ENABLED=0) build"
done
(cd "$out" && sha256sum reviewd-"$version"-linux-* > SHA256SUMS)

# The binary for this machine must start and name its version.
host=$out/reviewd-$version-linux-$(go env GOARCH)
if [[ $(go env GOOS) == linux && -x $host ]]; then
  "$host" version | grep -q "reviewd $version (commit $commit" || die "$host does not report version $version"
fi
ls -l "$out"/reviewd-"$version"-linux-* >&2
cat "$out/SHA256SUMS"
