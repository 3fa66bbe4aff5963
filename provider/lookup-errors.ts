/**
 * A lookup's failure names the lookup and the argument the service refused (./lookup-queries.ts): the
 * service's 404 says "not found" without saying which of a program's lookups asked.
 */
import { isSandboxError } from "../sdk/errors";

/** What each refusal means to the caller of a lookup, by the sdk's error code. */
const MEANINGS: Partial<Record<string, string>> = {
  not_found: "the API key's team has none",
  permission_denied: "the API key may not read it",
  invalid_argument: "the service refused it",
};

/**
 * `call`'s answer; a refusal of the argument (by default a 404, 403 or 400; `blamed` narrows it) becomes
 * `<lookup>: <argument> "<value>": <meaning> (<the service's message>)`, and any other 400
 * `<lookup>: <the service's message>`. Other failures (credentials, the network) pass as they are.
 */
export async function naming<T>(lookup: string, argument: string, value: string, call: () => Promise<T>, blamed = Object.keys(MEANINGS)): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isSandboxError(err)) throw err;
    const detail = err.service?.message ?? err.message;
    if (blamed.includes(err.code)) throw new Error(`${lookup}: ${argument} "${value}": ${MEANINGS[err.code]} (${detail})`, { cause: err });
    if (err.code === "invalid_argument") throw new Error(`${lookup}: the service refused the arguments: ${detail}`, { cause: err });
    throw err;
  }
}

/** The message of a lookup given an argument that names nothing the team has. */
export function noneFound(lookup: string, argument: string, value: string, what: string): Error {
  return new Error(`${lookup}: ${argument} "${value}": the API key's team has no such ${what}`);
}
