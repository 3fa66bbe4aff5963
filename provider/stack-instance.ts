/**
 * The stack instance of the classes' resources (./resource-key.ts), found by the program: the ID of the
 * dynamic provider's default instance in this stack (`pulumi:providers:pulumi-nodejs::default`), the
 * provider every class of ./classes.ts is served by.
 *
 * The engine sends that ID to the provider host with Configure, but @pulumi/pulumi's dynamic-provider
 * host keeps only the config, and a resource's own requests never carry it. So the program asks the
 * engine, with `pulumi:pulumi:getResource` (the lookup behind resource references), which knows every
 * resource this run registered. The engine registers a default provider when something first needs it;
 * the first resource of ours would, but its key is what is being computed. An invoke of the package
 * needs it too, so one is made first: the dynamic provider serves no functions and answers with an
 * error, which is expected and dropped.
 *
 * Why not a resource of our own holding a random value: it would be created in every stack that exists
 * today at its next run, so each would preview a change (and `preview --expect-no-changes` would fail)
 * for nothing the user did. The default provider already is such a value, kept by the engine, and its
 * steps are the engine's own: never shown, never counted as a change.
 */
import * as pulumi from "@pulumi/pulumi";

/** The type of the dynamic provider's provider resources. */
const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
/** A function of the dynamic provider's package, which has none: only its lookup of the provider matters. */
const NO_FUNCTION = "pulumi-nodejs:dynamic:stackInstance";

type Instance = string | typeof pulumi.unknown | undefined;

// Per run: an inline program of the Automation API may run several stacks in one process.
const lookups = new WeakMap<object, Promise<Instance>>();
// Per explicit provider (`opts.provider`): its own ID is the instance of the resources it serves.
const byProvider = new WeakMap<object, Promise<Instance>>();
const noStack = {};

/**
 * This run's stack instance: the ID of the provider that serves the resource (an explicit one given
 * with `opts.provider`, else the default); `pulumi.unknown` at the preview of the `up` that makes that
 * provider; undefined where there is none to give (mocks, or default providers denied with none given).
 */
export function stackInstance(provider?: pulumi.ProviderResource): Promise<Instance> {
  if (provider) {
    let found = byProvider.get(provider);
    if (!found) byProvider.set(provider, (found = lookUp(new Promise<string>((resolve) => provider.urn.apply(resolve)))));
    return found;
  }
  const run = pulumi.runtime.getStackResource() ?? noStack;
  let found = lookups.get(run);
  if (!found) lookups.set(run, (found = lookUp(defaultProviderUrn())));
  return found;
}

async function defaultProviderUrn(): Promise<string> {
  await pulumi.runtime.invoke(NO_FUNCTION, {}).catch(() => undefined);
  return new Promise<string>((resolve) => pulumi.createUrn("default", PROVIDER_TYPE).apply(resolve));
}

async function lookUp(providerUrn: Promise<string>): Promise<Instance> {
  const urn = await providerUrn;
  try {
    const found = (await pulumi.runtime.invoke("pulumi:pulumi:getResource", { urn })) as { id?: unknown };
    if (pulumi.isUnknown(found.id)) return pulumi.unknown;
    if (typeof found.id === "string" && found.id !== "") return found.id;
    throw new Error(`it has no ID (${JSON.stringify(found.id)})`);
  } catch (err) {
    const why = `pulumi-sandbox: no provider ${urn} (${err instanceof Error ? err.message : String(err)}): the keys of new resources are ` +
      "their URN alone, which a stack of the same name and project on another backend or organisation shares.";
    // Under mocks (a program's unit tests) there is no engine and no stack, so no provider: every run of
    // them would print a warning. An engine has the default provider, unless the program denies it
    // (`pulumi:disable-default-providers`): then the classes need a provider given with `opts.provider`.
    if (underMocks()) await pulumi.log.debug(why);
    else await pulumi.log.warn(`${why} Give the resources a provider (\`opts.provider\`), or allow the pulumi-nodejs default provider.`);
    return undefined;
  }
}

/** Whether the program runs under `pulumi.runtime.setMocks` (its monitor is the mocks' own). */
function underMocks(): boolean {
  const monitor = pulumi.runtime.getMonitor() as { mocks?: unknown } | undefined;
  return monitor?.mocks !== undefined;
}
