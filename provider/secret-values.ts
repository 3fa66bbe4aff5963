/**
 * Which values of a resource's args the program marked secret. The dynamic-provider host tells the
 * provider nothing of secrets (it asks the engine for plain values), so the class hands over the
 * plaintext of each secret string as one more input, itself a secret: state keeps it encrypted, and
 * the provider hides exactly these values from logs (pulumi.interpolate over a secret makes the whole
 * string secret, so a command that embeds a token is hidden whole), and nothing that is not secret.
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "./spec";

export function secretValuesOf(args: object): pulumi.Output<string[]> {
  return pulumi.secret(pulumi.output(collect(args, false).then((values) => [...new Set(values)])));
}

/** The value of an Output, with unknowns (preview) as they are, and without taking its dependencies. */
function valueOf(output: pulumi.Output<unknown>): Promise<unknown> {
  const withPromise = output as unknown as { promise?: (withUnknowns?: boolean) => Promise<unknown> };
  // An apply would never run for an unknown value at preview; only the Output's own promise sees it.
  if (typeof withPromise.promise !== "function") throw new Error("pulumi-sandbox: this @pulumi/pulumi has no Output.promise; use the version this package depends on");
  return withPromise.promise(true);
}

async function collect(value: unknown, secret: boolean): Promise<string[]> {
  if (pulumi.Output.isInstance(value)) {
    const [isSecret, inner] = await Promise.all([pulumi.isSecret(value), valueOf(value)]);
    return collect(inner, secret || isSecret);
  }
  if (value instanceof Promise) return collect(await value, secret);
  if (Array.isArray(value)) return (await Promise.all(value.map((v) => collect(v, secret)))).flat();
  if (value !== null && typeof value === "object") return (await Promise.all(Object.values(value).map((v) => collect(v, secret)))).flat();
  // Only strings: a secret number or flag is not something a log line could be searched for.
  return secret && typeof value === "string" && value !== "" && value !== UNKNOWN ? [value] : [];
}
