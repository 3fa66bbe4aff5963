#!/usr/bin/env bash
# Builds the Pulumi CLI and its Node language host from the tagged Go modules, for machines that cannot
# download them (no internet, only a Go module proxy). Called by scripts/ensure-pulumi.mjs; outside the
# repository; nothing built here is ever committed.
#   usage: build-pulumi-cli.sh <version, e.g. 3.259.0> <bin dir>
#
# Why a throwaway wrapper module: `go install pkg@version` refuses modules with replace directives, and
# pulumi's pkg/go.mod has two (one points sdk/v3 at ../sdk). A wrapper that requires pkg/v3 and sdk/v3 at
# the same tag gets a consistent pair; a dependency's replace directives are ignored.
#
# The Node language host has its own module (sdk/nodejs/cmd/pulumi-language-nodejs/v3) and no tag of its
# own; it is asked for at the pkg tag's commit. Where the proxy will not serve that module, the host is
# built from sdk/v3 v3.68.0, the last tag whose sdk module still contained it. Checked with engine 3.259:
# it runs TypeScript programs with dynamic providers through preview, up, refresh and destroy.
#
# The Python and Go hosts are built the same way: their own modules
# (sdk/python/cmd/pulumi-language-python/v3, sdk/go/pulumi-language-go/v3) are refused by the proxy
# here (403 "This module version is not available", every version), so they come from the last sdk/v3
# tags that embed them: Python's from v3.68.0 (sdk/v3/python/cmd/pulumi-language-python), Go's from
# v3.66.0 (sdk/v3/go/pulumi-language-go; v3.67.0 and later have it in its own module). The Python host
# runs `pulumi-language-python-exec` from PATH, a script of sdk/v3 at the CLI's version, copied beside
# it. Checked with engine 3.259: Python (the `pulumi` package of the same version) and Go
# (sdk/v3 of the same version) programs run through preview, up and destroy. These old hosts read no
# runtime options from the engine: a Python program runs with the `python3` first on PATH (activate
# the virtualenv), whatever Pulumi.yaml's `virtualenv` says.
#
# The YAML host has a module of its own with tagged versions (github.com/pulumi/pulumi-yaml) and no
# replace directives, so a plain `go install` at YAML_HOST_VERSION builds it; the proxy here serves
# that tag (not every one). Checked with engine 3.259: examples/yaml-sandbox runs through preview, up,
# an update and destroy (test/e2e/plugin-yaml.test.ts). The official CLI download ships its own.
set -euo pipefail
# The one pin of the YAML host (the tag the proxy here serves).
YAML_HOST_VERSION=1.25.0
version="$1"; bindir="$2"
cache="${PULUMI_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-sandbox}"
mkdir -p "$bindir"
export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" CGO_ENABLED=0
# Same flags as the release build. The version stamp matters: the Automation API parses `pulumi version`.
stamp() { echo "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$1"; }
log() { echo "pulumi-sandbox: $*" >&2; }

wrapper() { # a fresh wrapper module in $1
  mkdir -p "$1" && cd "$1"
  [ -f go.mod ] || go mod init pulumibuild.local >/dev/null 2>&1
}

build_cli() {
  wrapper "$cache/go-build-$version"
  log "building the Pulumi CLI v$version with $(go version | cut -d' ' -f3) in $PWD"
  go get "github.com/pulumi/pulumi/pkg/v3@v$version" "github.com/pulumi/pulumi/sdk/v3@v$version"
  # Upstream's clipboard fork only avoids a Windows DLL load; harmless elsewhere, kept to match upstream.
  go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
  go get "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@v$version"
  go build -trimpath -tags osusergo,grpcnotrace -ldflags "$(stamp "$version")" -o "$bindir/" \
    github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
}

build_host_at_tag() {
  local commit
  commit=$(go mod download -json "github.com/pulumi/pulumi/pkg/v3@v$version" | sed -n 's/.*"Hash": *"\([0-9a-f]*\)".*/\1/p' | head -1)
  [ -n "$commit" ] || return 1
  cd "$cache/go-build-$version"
  go get "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3@$commit" 2>/dev/null || return 1
  go build -trimpath -ldflags "$(stamp "$version")" -o "$bindir/" \
    github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3
}

build_host_embedded() {
  local legacy=3.68.0
  wrapper "$cache/go-build-langhost-$legacy"
  log "the language host module is not served here; building it from sdk/v3 v$legacy (the last tag that embeds it)"
  go get "github.com/pulumi/pulumi/sdk/v3@v$legacy"
  go build -trimpath -ldflags "$(stamp "$legacy")" -o "$bindir/" \
    github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs
}

# $1: the sdk/v3 tag that embeds the host; $2: its package under sdk/v3; $3: the binary's name.
build_embedded() {
  local tag=$1 package=$2
  wrapper "$cache/go-build-langhost-$tag"
  log "building $3 from sdk/v$tag (its own module is not served here)"
  go get "github.com/pulumi/pulumi/sdk/v3@v$tag"
  go build -trimpath -ldflags "$(stamp "$tag")" -o "$bindir/" "github.com/pulumi/pulumi/sdk/v3/$package"
}

build_yaml_host() { # the release's version stamp, so the engine reports the host's version
  log "building pulumi-language-yaml v$YAML_HOST_VERSION"
  GOBIN="$bindir" go install -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$YAML_HOST_VERSION" \
    "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@v$YAML_HOST_VERSION"
}

build_python_exec() { # the script the Python host runs, from the sdk of the CLI's own version
  local dir
  dir=$(go mod download -json "github.com/pulumi/pulumi/sdk/v3@v$version" | sed -n 's/.*"Dir": *"\(.*\)".*/\1/p')
  install -m 0755 "$dir/python/cmd/pulumi-language-python-exec" "$bindir/"
}

# Four groups at once: the builds are mostly module downloads and the linker, which overlap well even on
# two cores (a cold build took ~8 min one after another). Within a group the steps share a wrapper module
# (its go.mod is edited by each `go get`), so they stay in sequence: the CLI and the Node host (whose
# fallback, like the Python host, uses sdk v3.68.0's wrapper); then each other host on its own.
cli_group() {
  [ -x "$bindir/pulumi" ] || (build_cli)
  if [ ! -x "$bindir/pulumi-language-nodejs" ]; then
    (build_host_at_tag) || (build_host_embedded)
  fi
  [ -x "$bindir/pulumi-language-python" ] || (build_embedded 3.68.0 python/cmd/pulumi-language-python pulumi-language-python)
}
pids=()
(cli_group) >&2 & pids+=($!)
{ [ -x "$bindir/pulumi-language-python-exec" ] || (build_python_exec); } >&2 & pids+=($!)
{ [ -x "$bindir/pulumi-language-go" ] || (build_embedded 3.66.0 go/pulumi-language-go pulumi-language-go); } >&2 & pids+=($!)
{ [ -x "$bindir/pulumi-language-yaml" ] || (build_yaml_host); } >&2 & pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || { log "a build failed (its output is above)"; exit 1; }
"$bindir/pulumi" version
