#!/usr/bin/env bash
# A fresh clone installed with npm 12, as a contributor with npm 12 would: npm 12 runs a dependency's
# install script only when package.json's `allowScripts` approves it, and without the `node` package's
# preinstall there is no node_modules/.bin/node, so every npm script silently runs on the machine's
# Node (20 here) and `npm start` fails. Checks, on that clone: the install passes with
# --strict-allow-scripts (a dependency with an install script nobody approved or denied fails it),
# the npm scripts run node_modules/.bin/node and it is the Node the package pins, the lockfile is left
# as committed, and the installed tree is the one `npm ci` (npm 11) made in this checkout.
#   usage: .ci/fresh-clone-npm12.sh   (after `npm ci` in this checkout; clones HEAD, not the work tree)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
# npm 12 itself runs on this checkout's Node (24.21; it supports ^22.22.2, ^24.15 and >= 26), not on
# the machine's; the check below still wants the clone's own node_modules/node/bin/node.
export PATH="$repo/node_modules/.bin:$PATH"
npm12=(npx -y npm@12.2.1)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$repo" "$tmp/clone"
cd "$tmp/clone"
"${npm12[@]}" install --no-fund --no-audit --strict-allow-scripts --loglevel=error
want="v$(node -p 'require("./package.json").devDependencies.node') $PWD/node_modules/node/bin/node"
got="$("${npm12[@]}" run --silent which-node)"
if [ "$got" != "$want" ]; then
  echo "npm 12 (fresh clone): npm scripts run '$got', not the project's Node '$want'; is \`node\` approved in package.json's allowScripts?" >&2
  exit 1
fi
if ! git diff --quiet -- package-lock.json; then
  echo "npm 12 (fresh clone): npm install rewrote package-lock.json:" >&2
  git --no-pager diff --stat -- package-lock.json >&2
  exit 1
fi
# node_modules/node/node_modules is what the `node` preinstall's own `npm install --no-save` left
# (outside the lockfile; a later `npm install` prunes it): not compared.
tree() { (cd "$1" && npm ls --all --parseable | sed "s|^$1||" | grep -v '^/node_modules/node/node_modules/' | sort); }
if ! diff <(tree "$repo") <(tree "$PWD") >&2; then
  echo "npm 12 (fresh clone) installed another tree than npm ci did in $repo (< npm ci, > npm 12)" >&2
  exit 1
fi
echo "npm 12.2.1, fresh clone: npm scripts run $got; lockfile unchanged; same tree as npm ci"
