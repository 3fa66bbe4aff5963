#!/usr/bin/env bash
# The pipeline's Pulumi steps, one subcommand per workflow (.github/workflows/): kept here rather than
# inline in the YAML so a run on a laptop, the workflows and this repository's test
# (test/e2e/gitops.test.ts) run the same commands in the same order with the same env.
#
#   ./ci.sh preview   select (or create) $STACK, `pulumi preview --json`, write preview.md (the PR comment)
#   ./ci.sh up        select (or create) $STACK, `pulumi up --yes --skip-preview`
#   ./ci.sh destroy   `pulumi destroy --yes --skip-preview` and `pulumi stack rm` of $STACK; nothing to do
#                     if it never existed
#
# `--skip-preview` as pulumi/actions runs them (through the Automation API, which passes it): with `--yes`
# the preview an `up` starts with gates nothing, and would run the program twice.
#
# Env: STACK (pr-<number> or main), E2B_API_KEY (a CI secret), and the backend's: PULUMI_BACKEND_URL
# (empty: Pulumi Cloud, with PULUMI_ACCESS_TOKEN), PULUMI_CONFIG_PASSPHRASE (for s3://, gs://, azblob://
# or file:// backends). Optional: E2B_API_URL and E2B_SANDBOX_URL (a self-hosted service).
set -euo pipefail

: "${STACK:?set STACK to the stack to work on (pr-<number> or main)}"
cd "$(dirname "$0")"

# A self-managed backend (s3://, gs://, azblob://, file://) encrypts secrets with the passphrase, and an
# empty one is accepted: a forgotten CI secret would encrypt the API key with nothing.
case "${PULUMI_BACKEND_URL:-}" in
  "" | https://*) ;;
  *) : "${PULUMI_CONFIG_PASSPHRASE:?set PULUMI_CONFIG_PASSPHRASE (a CI secret): the backend $PULUMI_BACKEND_URL encrypts secrets with it}" ;;
esac

# A CI job starts from a fresh checkout, without the Pulumi.<stack>.yaml an earlier job wrote, so the key
# is set again on every run. It goes in on stdin, never as an argument (a process list shows those).
set_credentials() {
  : "${E2B_API_KEY:?set E2B_API_KEY (a CI secret) to the API key of the service}"
  printf '%s' "$E2B_API_KEY" | pulumi config set --secret sandbox:apiKey --stack "$STACK" --non-interactive
}

# Selects $STACK; returns 1 when the backend has no stack of that name (any other failure stops the run).
select_stack() {
  local err
  if err=$(pulumi stack select "$STACK" --non-interactive 2>&1); then return 0; fi
  if grep -qi "no stack named" <<<"$err"; then return 1; fi
  echo "$err" >&2
  exit 1
}

case "${1:-}" in
  preview)
    # The comment is written whatever fails, so the pull request shows that it did (and the errors).
    rm -f preview.json
    trap 'node summarize-preview.mjs preview.json "$STACK" >preview.md && cat preview.md' EXIT
    select_stack || pulumi stack init "$STACK" --non-interactive
    set_credentials
    pulumi preview --json --stack "$STACK" --non-interactive >preview.json
    ;;
  up)
    select_stack || pulumi stack init "$STACK" --non-interactive
    set_credentials
    pulumi up --yes --skip-preview --stack "$STACK" --non-interactive
    ;;
  destroy)
    if ! select_stack; then
      echo "stack $STACK does not exist: nothing to destroy"
      exit 0
    fi
    set_credentials
    pulumi destroy --yes --skip-preview --stack "$STACK" --non-interactive
    pulumi stack rm --yes --stack "$STACK" --non-interactive
    ;;
  *)
    echo "usage: STACK=<name> $0 preview|up|destroy" >&2
    exit 2
    ;;
esac
