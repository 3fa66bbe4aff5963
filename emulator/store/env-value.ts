/**
 * An ENV (or ARG) step's value as the service's builder evaluates it (infra:
 * packages/orchestrator/pkg/template/build/commands/env.go, evaluateValue): escaped (`\`, `"`,
 * backticks and `$(`) and printed by `printf "%s" "<value>"` in the build sandbox, as root, through
 * envd with no envs of the step's. So `$VAR` and `${VAR…}` expand against envd's own environment for
 * root (PATH, HOME, USER, LOGNAME, envd's variables, what the login shell's profile exports), NOT
 * against earlier ENV steps or the base image's config: `ENV PATH ${PATH}:/my/path` appends to
 * envd's PATH, and `ENV B $A` after `ENV A 1` gives an empty B, as on the service; nothing is run
 * and quotes stay (docs/service.md#env-steps). The emulator reads the double-quoted word with the
 * sdk's BuildKit lexer instead of a shell, so it needs no build sandbox and works unisolated too;
 * the expansions it does not know (`${#VAR}`, `$$`...) are refused, not guessed.
 */
import { ShellLex, ShellLexError } from "../../sdk/template-build/shell-lex";
import { STANDARD_PATH } from "./build-sandbox";

/**
 * What `printf` sees: envd's PATH (the base image's login PATH for root), root's HOME, USER and
 * LOGNAME, its cwd (root's home: the evaluation names no WORKDIR), the SHELL the base image's
 * provisioning exports from /etc/profile.d, and envd's E2B_SANDBOX (its sandbox and template IDs are the
 * build sandbox's, which no template can use: left out).
 */
const EVALUATION_ENV: ReadonlyMap<string, string> = new Map([
  ["PATH", STANDARD_PATH], ["HOME", "/root"], ["USER", "root"], ["LOGNAME", "root"], ["PWD", "/root"],
  ["SHELL", "/bin/bash"], ["E2B_SANDBOX", "true"],
]);

/** The escaping env.go applies before quoting the value. */
function escape(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("$(", "\\$(");
}

/** The evaluated value, or the failure as the builder words it for `key`. */
export function evaluateEnvValue(key: string, value: string): { value: string } | { failure: string } {
  // Without a `$` or a `\`, the double-quoted word is the value itself.
  if (!/[$\\]/.test(value)) return { value };
  try {
    const lex = new ShellLex("\\", { env: EVALUATION_ENV, skipUnsetEnv: false });
    return { value: lex.processWord(`"${escape(value)}"`) };
  } catch (err) {
    if (!(err instanceof ShellLexError)) throw err;
    return { failure: `failed to evaluate environment variable ${key}: the emulator cannot expand ${JSON.stringify(value)}: ${err.message}` };
  }
}
