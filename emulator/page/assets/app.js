// The emulator's page: vanilla modules, no framework, nothing from another origin. It reads the
// platform API with the API key as any client does (X-API-Key), and the emulator's /_emulator/page/
// routes where the API would answer a credential (a sandbox's tokens, a volume's token). The key comes
// from the link's fragment (#key=...), which no request carries, and is kept for this tab only.
import { liveSections } from "./sandbox-live.js";
import { api, fields, h, KEY_STORE, link, meta, shown, state, status, table, takeKeyFromLink, when } from "./ui.js";

const STACK = "pulumi-sandbox.stack";
const RESOURCE = "pulumi-sandbox.resource";
const view = document.getElementById("view");

async function overview() {
  const [sandboxes, templates, volumes] = await Promise.all([api("GET", "/v2/sandboxes?state=running,paused&limit=100"), api("GET", "/templates"), api("GET", "/volumes")]);
  return [
    h("h1", {}, "Overview"),
    h("h2", {}, `Sandboxes (${sandboxes.length})`),
    table(["ID", "state", "template", "metadata", "started", "ends at", "CPU / MB"], sandboxes.map((s) => [
      link(`#/sandboxes/${s.sandboxID}`, s.sandboxID), state(s.state), link(`#/templates/${s.templateID}`, s.alias ?? s.templateID), meta(s.metadata), when(s.startedAt), when(s.endAt), `${s.cpuCount} / ${s.memoryMB}`,
    ])),
    h("h2", {}, `Templates (${templates.length})`),
    table(["ID", "names", "status", "public", "builds"], templates.map((t) => [link(`#/templates/${t.templateID}`, t.templateID), t.names.join(", "), status(t.buildStatus), String(t.public), t.buildCount])),
    h("h2", {}, `Volumes (${volumes.length})`),
    table(["ID", "name"], volumes.map((v) => [link(`#/volumes/${v.volumeID}`, v.volumeID), v.name])),
  ];
}

async function sandbox(id) {
  const [s, logs] = await Promise.all([api("GET", `/_emulator/page/sandboxes/${id}`), api("GET", `/v2/sandboxes/${id}/logs`)]);
  const act = (label, method, path, then) => h("button", { id: `${label}-sandbox`, class: label === "kill" ? "danger" : "", onclick: async () => {
    await api(method, path);
    then ? then() : render();
  } }, label);
  return [
    h("h1", {}, `Sandbox ${s.sandboxID}`),
    h("p", {}, s.state === "running" ? act("pause", "POST", `/sandboxes/${id}/pause`) : act("resume", "POST", `/_emulator/page/sandboxes/${id}/resume`),
      act("kill", "DELETE", `/sandboxes/${id}`, () => (location.hash = "#/"))),
    fields([["state", state(s.state)], ["template", link(`#/templates/${s.templateID}`, s.alias ?? s.templateID)], ["metadata", meta(s.metadata)],
      ["started", when(s.startedAt)], ["ends at", when(s.endAt)], ["CPU / memory", `${s.cpuCount} / ${s.memoryMB} MB`],
      ["volumes", s.volumeMounts.map((m) => h("div", {}, `${m.name} at ${m.path}`))]]),
    h("h2", {}, "Ports"),
    s.ports.length ? h("ul", { id: "ports" }, s.ports.map((p) => h("li", {}, h("a", { href: p.url, target: "_blank", rel: "noopener noreferrer" }, `${p.port}: ${p.url}`)))) : h("p", { class: "muted" }, s.state === "running" ? "nothing listens" : "paused"),
    liveSections(id, s.state === "running"),
    h("h2", {}, "Log"),
    h("pre", { id: "sandbox-log" }, logs.logs.map((e) => `${e.timestamp} ${e.level.padEnd(5)} ${e.message}\n`)),
    h("h2", {}, "Files"),
    s.state === "running" ? files(`/_emulator/page/sandboxes/${id}/files`, "/home/user") : h("p", { class: "muted" }, "resume the sandbox to browse its files"),
  ];
}

/** A file browser over one of the page's file routes: a directory's entries, or a file's text. */
function files(route, start) {
  const box = h("div", { class: "files" });
  const open = async (path) => {
    const f = await api("GET", `${route}?path=${encodeURIComponent(path)}`).catch((e) => ({ error: e.message }));
    if (f.error) return box.replaceChildren(h("p", { class: "error" }, f.error));
    const up = f.path === "/" ? [] : [["..", f.path.replace(/\/[^/]+$/, "") || "/", "directory"]];
    box.replaceChildren(h("p", {}, h("code", { class: "file-path" }, f.path)), f.type === "directory"
      ? table(["name", "type", "size"], [...up, ...f.entries.map((e) => [e.name, e.path, e.type, e.size])].map(([name, path, type, size]) => [
        h("button", { class: "entry", onclick: () => open(path) }, name), type, size ?? ""]), "empty")
      : h("div", {}, h("button", { onclick: () => open(f.path.replace(/\/[^/]+$/, "") || "/") }, "back"), h("pre", { class: "file-text" }, f.text), f.truncated ? h("p", { class: "muted" }, `first ${f.text.length} of ${f.size} bytes`) : ""));
  };
  void open(start);
  return box;
}

async function template(id) {
  const [t, history] = await Promise.all([api("GET", `/templates/${id}`), api("GET", `/templates/${id}/tags/groups?assignmentLimit=25`).catch(() => ({ tags: [] }))]);
  const log = h("pre", { id: "build-log" });
  const chosen = new URLSearchParams(location.hash.split("?")[1]).get("build") ?? t.builds[0]?.buildID;
  if (chosen) void streamLog(id, chosen, log, shown.generation);
  return [
    h("h1", {}, `Template ${t.templateID}`),
    fields([["names", t.names.join(", ")], ["public", String(t.public)], ["status", status(t.buildStatus)], ["CPU / memory", `${t.cpuCount} / ${t.memoryMB} MB`], ["created", when(t.createdAt)]]),
    h("h2", {}, "Tags and their history"),
    table(["tag", "build now", "earlier builds (newest first)"], history.tags.map((g) => [g.tag, tagged(g.assignments[0]), g.assignments.slice(1).map((a) => h("div", {}, tagged(a)))])),
    h("h2", {}, "Builds"),
    table(["build", "status", "created", "finished"], t.builds.map((b) => [link(`#/templates/${id}?build=${b.buildID}`, b.buildID), status(b.status), when(b.createdAt), when(b.finishedAt)])),
    h("h2", {}, `Build log ${chosen ?? ""}`),
    log,
  ];
}

const tagged = (a) => (a ? `${a.buildId} (${when(a.assignedAt)})` : "");

/** Appends a build's log lines as they come (the build-status route with logsOffset), until it ends. */
async function streamLog(id, buildID, pre, mine) {
  let offset = 0;
  while (mine === shown.generation) {
    const b = await api("GET", `/templates/${id}/builds/${buildID}/status?logsOffset=${offset}`);
    for (const e of b.logEntries) pre.append(`${e.timestamp} ${e.level.padEnd(5)} ${e.message}\n`);
    offset += b.logEntries.length;
    if (b.logEntries.length === 100) continue;
    if (b.status !== "building" && b.status !== "waiting") return pre.setAttribute("data-status", b.status);
    await new Promise((r) => setTimeout(r, 400));
  }
}

async function volume(id) {
  const v = (await api("GET", "/volumes")).find((x) => x.volumeID === id);
  if (!v) throw new Error(`no volume ${id}`);
  return [h("h1", {}, `Volume ${v.name}`), fields([["ID", v.volumeID], ["name", v.name]]), h("h2", {}, "Files"), files(`/_emulator/page/volumes/${id}/files`, "/")];
}

async function snapshots() {
  const list = await api("GET", "/snapshots");
  return [h("h1", {}, "Snapshots"), table(["ID", "names"], list.map((s) => [s.snapshotID, s.names.join(", ")]))];
}

async function secrets() {
  const list = await api("GET", "/secrets");
  return [h("h1", {}, "Secrets"), h("p", { class: "muted" }, "Names and metadata only: the API never gives a value back."),
    table(["ID", "name", "version", "metadata", "updated"], list.map((s) => [s.secretID, s.name, s.currentVersion, meta(s.metadata), when(s.updatedAt)]))];
}

async function webhooks() {
  const [hooks, { deliveries }] = await Promise.all([api("GET", "/events/webhooks"), api("GET", "/_emulator/webhook-deliveries")]);
  return [h("h1", {}, "Webhooks"), table(["ID", "name", "url", "events", "enabled"], hooks.map((w) => [w.id, w.name, w.url, w.events.join(", "), String(w.enabled)])),
    h("h2", {}, "Deliveries"), table(["event", "sandbox", "webhook", "state", "attempts"], deliveries.map((d) => [d.eventType, d.sandboxID, d.webhookID, d.state, d.attempts.length]))];
}

/** What a sandbox's marks say made it (/_emulator/page/provider-marks). */
const MADE_BY = {
  finished: "a finished create",
  interrupted: "an interrupted run: no create finished (the stack's next up adopts it; if no stack records it, delete it)",
  "before-claims": "a provider before claims (0.3): unknown",
};

/**
 * What each stack made, by the markers the provider leaves in a sandbox's metadata, and what a killed
 * run left: sandboxes no finished create claimed, volumes whose create never ended.
 */
async function stacks() {
  const [sandboxes, marks] = await Promise.all([api("GET", "/v2/sandboxes?state=running,paused&limit=100"), api("GET", "/_emulator/page/provider-marks")]);
  const groups = new Map();
  for (const s of sandboxes) {
    const stack = s.metadata?.[STACK] ?? "(not made by a stack)";
    groups.set(stack, [...(groups.get(stack) ?? []), s]);
  }
  const left = marks.interruptedVolumes;
  return [h("h1", {}, "By stack"), [...groups].map(([stack, list]) => [h("h2", {}, stack),
    table(["resource", "sandbox", "state", "template", "made by"], list.map((s) => [s.metadata?.[RESOURCE] ?? "", link(`#/sandboxes/${s.sandboxID}`, s.sandboxID), state(s.state), s.templateID, MADE_BY[marks.sandboxes[s.sandboxID]] ?? ""]))]),
    h("h2", {}, `Volumes an interrupted create left (${left.length})`),
    h("p", {}, "Their create never ended (their pending mark is still there): the next up of the stack that made them adopts them; if no stack records one, delete it."),
    table(["volume", "name"], left.map((v) => [link(`#/volumes/${v.volumeID}`, v.volumeID), v.name]))];
}

function signIn() {
  const input = h("input", { type: "password", id: "api-key", placeholder: "the emulator's API key", autocomplete: "off" });
  return [h("h1", {}, "Sign in"), h("p", {}, "The ready line's pageUrl signs you in; or give the API key here."),
    h("form", { onsubmit: (e) => (e.preventDefault(), sessionStorage.setItem(KEY_STORE, input.value), render()) }, input, h("button", {}, "Open"))];
}

const ROUTES = [[/^#\/?$/, overview], [/^#\/sandboxes\/([^/?]+)/, sandbox], [/^#\/templates\/([^/?]+)/, template], [/^#\/volumes\/([^/?]+)/, volume],
  [/^#\/snapshots/, snapshots], [/^#\/secrets/, secrets], [/^#\/webhooks/, webhooks], [/^#\/stacks/, stacks]];

/** Views that follow the emulator: read again every few seconds, shown again only when they changed. */
const LIVE = new Set([overview, stacks]);

async function keepLive(show, mine) {
  while (true) {
    await new Promise((r) => setTimeout(r, 3000));
    if (mine !== shown.generation) return;
    if (document.hidden) continue;
    const content = [await show().catch(() => [])].flat(Infinity);
    const box = h("div", {}, content);
    if (mine === shown.generation && box.textContent !== view.textContent) view.replaceChildren(...box.childNodes);
  }
}

async function render() {
  const mine = ++shown.generation;
  const [re, show] = ROUTES.find(([r]) => r.test(location.hash || "#/")) ?? ROUTES[0];
  try {
    const content = sessionStorage.getItem(KEY_STORE) ? await show(...(re.exec(location.hash || "#/") ?? []).slice(1)) : signIn();
    if (mine === shown.generation) view.replaceChildren(...[content].flat(Infinity));
    if (LIVE.has(show)) void keepLive(show, mine);
  } catch (err) {
    if (mine !== shown.generation) return;
    if (err.unauthorized) sessionStorage.removeItem(KEY_STORE);
    view.replaceChildren(h("p", { class: "error" }, err.message), ...(err.unauthorized ? signIn() : []));
  }
}

takeKeyFromLink();
addEventListener("hashchange", render);
void render();
