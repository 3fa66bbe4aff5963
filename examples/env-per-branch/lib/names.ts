// A branch or person's name → the name of its stack. Stack names allow letters, digits, '-', '_' and
// '.', so `feature/login` becomes `feature-login`; two names that map to the same stack are refused
// rather than sharing one environment.

const NOT_ALLOWED = /[^A-Za-z0-9_.-]+/g;

export function stackNameOf(name: string): string {
  const stack = name.trim().replace(NOT_ALLOWED, "-").replace(/^-+|-+$/g, "");
  if (stack === "") throw new Error(`"${name}" is not a usable environment name: it needs a letter or a digit`);
  return stack;
}

/** The stack names of `names`, once each; throws naming two names that would share a stack. */
export function stackNamesOf(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const name of names) {
    const stack = stackNameOf(name);
    const other = seen.get(stack);
    if (other !== undefined && other !== name) throw new Error(`"${other}" and "${name}" would share the stack ${stack}: rename one of them`);
    seen.set(stack, name);
  }
  return [...seen.keys()];
}
