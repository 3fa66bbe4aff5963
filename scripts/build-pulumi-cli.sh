#!/usr/bin/env bash
# Builds the Pulumi CLI of a given version from the tagged Go modules, for machines that cannot
# download it (no internet but a Go module proxy). Output: $PULUMI_HOME/versions/<version>/bin/pulumi.
#
# Why a throwaway wrapper module: `go install pkg@version` refuses modules with replace directives,
# and pulumi's pkg/go.mod has two (one points sdk/v3 at ../sdk). A wrapper that requires pkg/v3 and
# sdk/v3 at the same tag gets a consistent pair; the replaces of a dependency are ignored.
# Usage: build-pulumi-cli.sh <version without v> <bin dir>
set -euo pipefail
version="$1"; bindir="$2"
work="${PULUMI_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-sandbox/go-build-$version}"
mkdir -p "$work" "$bindir"
cd "$work"
export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
[ -f go.mod ] || go mod init pulumibuild.local >/dev/null 2>&1
echo "pulumi-sandbox: building the Pulumi CLI v$version with $(go version) in $work (first time: 10-30 min)" >&2
go get "github.com/pulumi/pulumi/pkg/v3@v$version" "github.com/pulumi/pulumi/sdk/v3@v$version" >&2
# The clipboard fork upstream uses only avoids a Windows DLL load; harmless elsewhere, kept to match.
go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@v$version" >&2
# Same flags as the release build; the version stamp matters: the Automation API parses `pulumi version`.
CGO_ENABLED=0 go build -trimpath -tags osusergo,grpcnotrace \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
  -o "$bindir/" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
"$bindir/pulumi" version
