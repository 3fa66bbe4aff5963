// The page's shared pieces: the API key and the calls made with it, the element builder, the few
// formats every view uses, and which view is shown (a view's polling stops once another is shown).
export const KEY_STORE = "sandbox-emulator-key";
export const shown = { generation: 0 };

export function takeKeyFromLink() {
  const m = /^#key=([^&]*)/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(KEY_STORE, decodeURIComponent(m[1]));
  history.replaceState(null, "", `${location.pathname}#/`);
}

export async function api(method, path) {
  const res = await fetch(path, { method, headers: { "X-API-Key": sessionStorage.getItem(KEY_STORE) ?? "" } });
  if (res.status === 401) throw Object.assign(new Error("the API key was refused"), { unauthorized: true });
  const body = res.status === 204 ? undefined : await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${body?.message ?? ""}`);
  return body;
}

/** An element: attributes (`on*` handlers included), then children (text is never parsed as HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) el.setAttribute(k, v);
  }
  el.append(...children.flat().map((c) => (c instanceof Node ? c : String(c ?? ""))));
  return el;
}
export const link = (hash, text) => h("a", { href: hash }, text);
export const table = (heads, rows, empty = "none") =>
  rows.length ? h("table", {}, h("tr", {}, heads.map((x) => h("th", {}, x))), rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))) : h("p", { class: "muted" }, empty);
export const fields = (pairs) => h("dl", {}, pairs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
export const meta = (m) => Object.entries(m ?? {}).map(([k, v]) => h("div", {}, h("code", {}, `${k}=${v}`)));
export const when = (t) => (t ? new Date(t).toLocaleString() : "");
export const state = (s) => h("span", { class: `state-${s}` }, s);
export const status = (s) => h("span", { class: `status-${s}` }, s);
