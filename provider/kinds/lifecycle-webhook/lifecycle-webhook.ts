/** LifecycleWebhook create/read/update/delete. The map of calls and the replace rule are in ./spec.ts. */
import { LIFECYCLE_EVENT_TYPES, type NewWebhook, type Webhook, type WebhookUpdate } from "../../../sdk/schemas/events";
import { platform } from "../../runtime/context";
import { ignoreNotFound, isNotFound, type InputsOf, type ResourceHandlers, type SpecInputs, type StateOf } from "../../runtime/handlers";
import { resourceLogger } from "../../runtime/log";
import { autoNamed, createOnce, outcomeUnknown } from "../../runtime/outcome";
import { wireBody, type WireMap } from "../../runtime/wire";

type State = StateOf<"LifecycleWebhook">;

export const NEW_WEBHOOK: WireMap<SpecInputs<"LifecycleWebhook">, NewWebhook> = {
  name: (name) => ({ name }),
  url: (url) => ({ url }),
  enabled: (enabled) => ({ enabled }),
  events: (events) => ({ events }),
  signatureSecret: (signatureSecret) => ({ signatureSecret }),
};

/** PATCH replaces each field sent: every input is sent, so the service holds what the program says. */
export const WEBHOOK_UPDATE: WireMap<SpecInputs<"LifecycleWebhook">, WebhookUpdate> = NEW_WEBHOOK;

/** The team's webhook listed under `name`, if one is (the list is not paged). */
async function webhookNamed(name: string): Promise<Webhook | undefined> {
  return (await platform().webhooks.list()).find((hook) => hook.name === name);
}

/**
 * What the service reports, over the inputs (the secret is never answered: the program's stays). An
 * event type newer than this version is kept as the service names it: the next diff shows it.
 */
const reported = (hook: Webhook) => ({ name: hook.name, url: hook.url, enabled: hook.enabled, events: hook.events as State["events"], webhookID: hook.id });

const state = (inputs: InputsOf<"LifecycleWebhook">, hook: Webhook): State => ({ ...inputs, ...reported(hook) });

export const lifecycleWebhookHandlers: ResourceHandlers<"LifecycleWebhook"> = {
  async create(inputs) {
    const body = { events: [...LIFECYCLE_EVENT_TYPES], ...wireBody(NEW_WEBHOOK, inputs) } as NewWebhook;
    // An auto-name (key and generation: ../naming.ts) is this resource's alone: a webhook listed under
    // it was made by an interrupted create of this resource (a killed `up`, a lost answer). It is
    // adopted and given the program's inputs, rather than left to deliver beside a second one. A name
    // the program chose may be any webhook's, so such a create is never repeated.
    if (!autoNamed(inputs, "name")) return made(inputs, await platform().webhooks.create(body).catch((err) => Promise.reject(outcomeUnknown(err) ? lostCreate(err, body.name) : err)));
    const adopt = async (found: Webhook) => {
      resourceLogger("LifecycleWebhook", inputs)(`adopting webhook ${found.id}, made under this resource's name by an interrupted run`);
      return platform().webhooks.update(found.id, body);
    };
    const earlier = await webhookNamed(body.name);
    if (earlier) return made(inputs, await adopt(earlier));
    return made(inputs, await createOnce(() => platform().webhooks.create(body), async () => {
      const found = await webhookNamed(body.name);
      return found && adopt(found);
    }));
  },

  async read(id, olds) {
    let hook: Webhook;
    try {
      hook = await platform().webhooks.get(id);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    return { id, props: { ...olds, ...reported(hook) } };
  },

  async update(id, _olds, news) {
    const body = wireBody(WEBHOOK_UPDATE, news) as WebhookUpdate;
    return { outs: state(news, await platform().webhooks.update(id, body)) };
  },

  async delete(id) {
    await ignoreNotFound(() => platform().webhooks.delete(id));
  },
};

/** A create under a chosen name whose answer was lost: what the user can do, since the provider cannot tell. */
function lostCreate(err: Error, name: string): Error {
  return new Error(
    `${err.message}. The webhook "${name}" may have been registered: look for it in the team's webhooks (GET /events/webhooks), ` +
    "then import it (`pulumi import sandbox:index:LifecycleWebhook <resource name> <webhookID>`) or delete it, and run `pulumi up` again. " +
    "Another webhook may have the same name, so the provider does not take one for this resource's; leave `name` out and it does, by its auto-name.",
    { cause: err },
  );
}

function made(inputs: InputsOf<"LifecycleWebhook">, hook: Webhook) {
  return { id: hook.id, outs: state(inputs, hook) };
}
