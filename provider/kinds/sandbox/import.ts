/** A sandbox read for an import (the plugin's Read with no state), as a program would have made it. */
type Obj = Record<string, unknown>;

export function sandboxAsWritten(props: Obj): Obj {
  return {
    // A program names a template by its alias (`base`); the service reports both, and the ID would
    // differ from what the program says and replace the sandbox.
    templateID: typeof props.alias === "string" && props.alias ? props.alias : props.templateID,
    // The life the sandbox was given: its deadline counted from its start (unless extended since).
    timeoutSeconds: lifeSeconds(props),
  };
}

function lifeSeconds(props: Obj): number | undefined {
  const seconds = Math.round((Date.parse(String(props.endAt)) - Date.parse(String(props.startedAt))) / 1000);
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 86_400 ? seconds : undefined;
}
