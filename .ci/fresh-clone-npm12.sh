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
# npm 12 runs on the Node that ran `npm ci` here (the machine's), as the trees compared below depend on
# it: an optional dependency whose engines exclude that Node is left out (e2b's undici8 on Node 20).
npm12=(npx -y npm@12.2.1)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$repo" "$tmp/clone"
cd "$tmp/clone"
"${npm12[@]}" install --no-fund --no-audit --prefer-offline --strict-allow-scripts --loglevel=error
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
# Not compared, as npm did not make them: node_modules/node/node_modules, what the `node` preinstall's
# own `npm install --no-save` left (a later `npm install` prunes it), and node_modules/pulumi-sandbox,
# the link `prepare` makes (scripts/link-self.mjs).
tree() { (cd "$1" && npm ls --all --parseable | sed "s|^$1||" | grep -Ev '^/node_modules/(node/node_modules/|pulumi-sandbox$)' | sort); }
if ! diff <(tree "$repo") <(tree "$PWD") >&2; then
  echo "npm 12 (fresh clone) installed another tree than npm ci did in $repo (< npm ci, > npm 12)" >&2
  exit 1
fi
echo "npm 12.2.1, fresh clone: npm scripts run $got; lockfile unchanged; same tree as npm ci"
