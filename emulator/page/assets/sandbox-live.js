// A sandbox's processes (as envd knows them, with the output of the commands run through the API)
// and its metrics (GET /sandboxes/{id}/metrics), read again every 2 s while its view is shown. A
// section is drawn again only when what it shows changed, so an expanded output stays as it is.
import { api, h, shown, table, when } from "./ui.js";

const REFRESH_MS = 2000;
const READINGS_SHOWN = 10;
const SVG = "http://www.w3.org/2000/svg";

/** The Processes and Metrics sections of sandbox `id`, kept up to date while this view is shown. */
export function liveSections(id, running) {
  const procs = h("div", { id: "processes" }, h("p", { class: "muted" }, "loading…"));
  const metrics = h("div", { id: "metrics" }, h("p", { class: "muted" }, "loading…"));
  const opened = new Set(); // processes expanded by the user, kept open across refreshes
  const drawn = { procs: "", metrics: "" };
  const redraw = (box, key, data, draw) => {
    const text = JSON.stringify(data);
    if (text !== drawn[key]) box.replaceChildren(...[draw(data)].flat());
    drawn[key] = text;
  };
  const refresh = async () => {
    const [p, m] = await Promise.all([api("GET", `/_emulator/page/sandboxes/${id}/processes`), running ? api("GET", `/sandboxes/${id}/metrics`) : []]);
    redraw(procs, "procs", p, (data) => processList(data, opened));
    redraw(metrics, "metrics", m, (readings) => metricsView(readings, running));
  };
  void follow(refresh, shown.generation, [procs, metrics]);
  return [h("h2", {}, "Processes"), procs, h("h2", {}, "Metrics"), metrics];
}

async function follow(refresh, mine, boxes) {
  while (mine === shown.generation) {
    if (!document.hidden) await refresh().catch((e) => mine === shown.generation && boxes[0].replaceChildren(h("p", { class: "error" }, e.message)));
    await new Promise((r) => setTimeout(r, REFRESH_MS));
  }
}

function processList({ processes, outputTailBytes }, opened) {
  if (!processes.length) return h("p", { class: "muted" }, "no command run through the API yet");
  return processes.map((p) => {
    const key = `${p.pid}@${p.startedAt}`;
    const box = h("details", { class: "process", "data-pid": p.pid, "data-state": p.state, ontoggle: (e) => (e.target.open ? opened.add(key) : opened.delete(key)) },
      h("summary", {}, h("code", {}, p.pid), " ", h("span", { class: `state-${p.state}` }, p.state === "running" ? "running" : `exited ${p.exitCode}`),
        " ", h("code", { class: "process-command" }, [p.cmd, ...p.args].join(" ")), p.tag ? h("span", { class: "muted" }, ` tag ${p.tag}`) : ""),
      h("p", { class: "muted" }, `cwd ${p.cwd}`, p.pty ? " · terminal" : "", ` · started ${when(p.startedAt)}`, p.endedAt ? ` · ended ${when(p.endedAt)} (${p.status})` : "",
        ` · env: ${p.envNames.length ? p.envNames.join(", ") : "none set"} (names only)`),
      h("pre", { class: "process-output" }, p.output.map((part) => h("span", { class: `out-${part.stream}` }, part.text))),
      p.outputTruncated ? h("p", { class: "muted" }, `last ${outputTailBytes / 1024} KiB of ${p.outputBytes} bytes`) : "");
    if (opened.has(key)) box.open = true;
    return box;
  });
}

const mib = (bytes) => `${Math.round(bytes / 1048576)} MiB`;
const pct = (used, total) => (total ? `${((100 * used) / total).toFixed(1)} %` : "");

function metricsView(readings, running) {
  if (!readings.length) return h("p", { class: "muted" }, running ? "no reading yet" : "no readings while paused");
  const last = readings.at(-1);
  const recent = readings.slice(-READINGS_SHOWN).reverse();
  return [
    h("dl", { id: "metrics-latest" },
      h("dt", {}, "CPU"), h("dd", {}, `${last.cpuUsedPct.toFixed(1)} % of ${last.cpuCount} vCPU `, spark(readings.map((r) => r.cpuUsedPct), 100)),
      h("dt", {}, "memory"), h("dd", {}, `${mib(last.memUsed)} of ${mib(last.memTotal)} (${pct(last.memUsed, last.memTotal)}) `, spark(readings.map((r) => r.memUsed), last.memTotal)),
      h("dt", {}, "disk"), h("dd", {}, `${mib(last.diskUsed)} of ${mib(last.diskTotal)} (${pct(last.diskUsed, last.diskTotal)})`),
      h("dt", {}, "reading"), h("dd", {}, `${when(last.timestamp)} (${readings.length} since it started)`)),
    table(["time", "CPU %", "memory", "disk"], recent.map((r) => [when(r.timestamp), r.cpuUsedPct.toFixed(1), `${mib(r.memUsed)} / ${mib(r.memTotal)}`, `${mib(r.diskUsed)} / ${mib(r.diskTotal)}`])),
  ];
}

/** A small line of the last 60 values against `max`: inline SVG, drawn here (no chart library). */
function spark(values, max) {
  const shownValues = values.slice(-60);
  const w = 120, ht = 18, step = shownValues.length > 1 ? w / (shownValues.length - 1) : 0;
  const points = shownValues.map((v, i) => `${(i * step).toFixed(1)},${(ht - (ht * Math.min(v, max)) / (max || 1)).toFixed(1)}`).join(" ");
  const svg = document.createElementNS(SVG, "svg");
  for (const [k, v] of Object.entries({ class: "spark", width: w, height: ht, viewBox: `0 0 ${w} ${ht}`, role: "img", "aria-label": "recent readings" })) svg.setAttribute(k, v);
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", shownValues.length > 1 ? points : `0,${points.split(",")[1]} ${w},${points.split(",")[1]}`);
  svg.append(line);
  return svg;
}
