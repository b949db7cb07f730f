// The `tama ui` page: one HTML document with its CSS and script inline (allowed by
// a per-response nonce). The script opens the WebSocket, keeps the newest view and
// renders it; every value is set as text, never as markup (a reason is a hook's own
// words). Charts are inline SVG.

const CSS = `
:root { --bg:#0f1419; --panel:#161c24; --line:#263040; --fg:#d7dde5; --dim:#8391a3; --pass:#3fb950; --block:#f85149; --ask:#d29922; --fail:#a371f7; --cancel:#8b949e; --accent:#58a6ff; }
* { box-sizing: border-box; }
body { margin:0; font:13px/1.45 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--fg); }
header { display:flex; align-items:baseline; gap:16px; padding:12px 20px; border-bottom:1px solid var(--line); }
header h1 { font-size:16px; margin:0; font-weight:600; }
header .home { color:var(--dim); font-family:ui-monospace, monospace; font-size:12px; }
#live { margin-left:auto; padding:2px 10px; border-radius:10px; font-size:12px; background:#3d1d1d; color:var(--block); }
#live.on { background:#12301b; color:var(--pass); }
main { display:grid; grid-template-columns: minmax(0,1fr) minmax(0,1fr); gap:16px; padding:16px 20px; }
section { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; }
section.wide { grid-column: 1 / -1; }
h2.later { margin-top:16px; }
h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--dim); margin:0 0 10px; font-weight:600; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); vertical-align:top; white-space:nowrap; }
th { color:var(--dim); font-weight:500; font-size:12px; }
td.wrap { white-space:normal; }
td.reason { white-space:normal; min-width:280px; color:var(--dim); }
td.mono, .mono { font-family:ui-monospace, monospace; font-size:12px; }
.empty { color:var(--dim); font-style:italic; }
.outcome { display:inline-block; padding:0 7px; border-radius:9px; font-size:12px; font-weight:600; }
.o-pass { color:var(--pass); background:#12301b; } .o-block { color:var(--block); background:#3d1d1d; }
.o-ask { color:var(--ask); background:#3a2e12; } .o-failed-open, .o-failed-closed { color:var(--fail); background:#2a1f3d; }
.o-cancelled { color:var(--cancel); background:#22272e; }
.filters { display:flex; flex-wrap:wrap; gap:8px; margin-bottom:10px; }
.filters label { color:var(--dim); font-size:12px; display:flex; gap:4px; align-items:center; }
select { background:var(--bg); color:var(--fg); border:1px solid var(--line); border-radius:4px; padding:2px 4px; max-width:220px; }
.stats { display:flex; gap:18px; margin-bottom:10px; }
.stat b { display:block; font-size:20px; font-weight:600; }
.stat span { color:var(--dim); font-size:12px; }
.scroll { max-height:360px; overflow:auto; }
svg text { fill:var(--dim); font-size:10px; font-family:ui-monospace, monospace; }
.problem { color:var(--block); }
`;

const SCRIPT = `
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
let view = null;
const filters = { session: "", event: "", tool: "", hook: "", outcome: "" };
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return e;
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
const ms = (n) => (n >= 100 ? Math.round(n) : Math.round(n * 10) / 10) + " ms";
const time = (t) => new Date(t).toLocaleTimeString([], { hour12: false });
const short = (s, n) => (s && s.length > n ? s.slice(0, n) + "…" : s || "—");
function badge(outcome) { return el("span", { class: "outcome o-" + outcome, "data-outcome": outcome }, outcome); }
function table(id, head, rows, emptyText) {
  const t = $(id);
  t.replaceChildren();
  if (rows.length === 0) { t.append(el("tr", {}, el("td", { class: "empty", colspan: String(head.length) }, emptyText))); return; }
  t.append(el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(r);
}

function rowsOf(records) {
  const rows = [];
  for (const r of records) {
    const hooks = r.hooks.length > 0 ? r.hooks : [{ hook: "", outcome: r.decision, ms: r.totalMs }];
    for (const h of hooks) rows.push({ r, h });
  }
  return rows;
}
function matches(row) {
  const { r, h } = row;
  return (!filters.session || r.session === filters.session) && (!filters.event || r.event === filters.event) &&
    (!filters.tool || r.tool === filters.tool) && (!filters.hook || h.hook === filters.hook) && (!filters.outcome || h.outcome === filters.outcome);
}
function fillSelect(id, key, values) {
  const s = $(id);
  const keep = filters[key];
  s.replaceChildren(el("option", { value: "" }, "all"), ...[...new Set(values)].filter((v) => v).sort().map((v) => el("option", { value: v }, v)));
  s.value = keep;
  if (s.value !== keep) { filters[key] = ""; s.value = ""; }
}

function renderSessions(v) {
  $("sessions-problem").textContent = v.sessionsProblem || "";
  table("sessions", ["session", "OMP pid", "cwd", "adapter", "engine", "release", "gates loaded", "project hooks"], v.sessions.map((s) =>
    el("tr", { "data-testid": "session-row" },
      el("td", { class: "mono" }, short(s.session, 24)), el("td", { class: "mono" }, s.ompPid), el("td", { class: "mono wrap" }, s.cwd),
      el("td", { class: "mono" }, s.adapterDigest ? s.adapterDigest.slice(0, 12) : "—"), el("td", { class: "mono" }, s.enginePid ?? "none yet"),
      el("td", { class: "mono" }, s.releaseId ?? "—"),
      el("td", { class: "wrap" }, s.gates ? s.gates.length + ": " + s.gates.join(", ") : s.catalogChecksum ? "another catalog (" + s.catalogChecksum.slice(0, 12) + ")" : "—"),
      el("td", { class: "wrap", "data-testid": "project-hooks" }, projectHooksText(s.project)))), "no live OMP session");
}

function projectHooksText(p) {
  if (!p) return "—";
  if (p.trust === "trusted") return "trusted, run";
  const why = p.trust === "changed" ? "changed since trusted (" + p.changes.join(", ") + "), calls refused" : "not trusted";
  return p.held.length + " held: " + why + " · tama trust " + p.root;
}

function renderActivity(v) {
  const all = rowsOf(v.activity);
  fillSelect("f-session", "session", v.activity.map((r) => r.session));
  fillSelect("f-event", "event", v.activity.map((r) => r.event));
  fillSelect("f-tool", "tool", v.activity.map((r) => r.tool));
  fillSelect("f-hook", "hook", all.map((x) => x.h.hook));
  fillSelect("f-outcome", "outcome", ["pass", "block", "ask", "failed-open", "failed-closed", "cancelled"]);
  const shown = all.filter(matches);
  const dispatches = [...new Set(shown.map((x) => x.r))];
  const blocked = dispatches.filter((r) => r.decision === "block").length;
  const asked = dispatches.filter((r) => r.decision === "ask").length;
  $("n-dispatches").textContent = String(dispatches.length);
  $("n-blocked").textContent = String(blocked);
  $("n-asked").textContent = String(asked);
  $("deny-rate").textContent = dispatches.length === 0 ? "—" : Math.round((100 * blocked) / dispatches.length) + "%";
  const rows = shown.slice(-300).reverse().map(({ r, h }) =>
    el("tr", { "data-testid": "activity-row", "data-outcome": h.outcome, "data-event": r.event },
      el("td", { class: "mono" }, time(r.at)), el("td", { class: "mono" }, short(r.session, 12)), el("td", { class: "mono" }, r.event),
      el("td", { class: "mono" }, r.tool ?? "—"), el("td", { class: "mono" }, h.hook || "(no hook)"), el("td", {}, badge(h.outcome)),
      el("td", { class: "reason" }, h.reason ?? ""), el("td", { class: "mono" }, ms(h.ms))));
  table("activity", ["time", "session", "event", "tool", "hook", "outcome", "reason", "took"], rows, "no dispatch yet");
}

function renderRunning(v) {
  table("running", ["hook", "event", "session", "engine", "running for"], v.running.map((h) =>
    el("tr", { "data-testid": "running-row" }, el("td", { class: "mono" }, h.hook), el("td", { class: "mono" }, h.event), el("td", { class: "mono" }, short(h.session, 14)),
      el("td", { class: "mono" }, h.enginePid + (h.engineGone ? " (gone)" : "")), el("td", { class: "mono" }, ms(h.runningForMs)))), "no hook is running");
  table("abandoned", ["session", "when", "signal", "hooks"], v.abandonments.map((a) =>
    el("tr", { "data-testid": "abandoned-row" }, el("td", { class: "mono" }, short(a.session, 14)), el("td", { class: "mono" }, time(a.abandonedAtMs)), el("td", {}, a.reason),
      el("td", { class: "mono" }, a.hooks.map((h) => h.hook + " (" + ms(h.ranForMs) + ")").join(", ")))), "no abandonment recorded");
}

function chart(points, p95) {
  const w = 150, h = 36;
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" });
  if (points.length === 0) return s;
  const t0 = points[0][0], t1 = points[points.length - 1][0];
  const top = Math.max(...points.map((p) => p[1]), p95, 0.001);
  const x = (t) => (t1 === t0 ? w / 2 : 4 + ((t - t0) / (t1 - t0)) * (w - 8));
  const y = (v) => h - 4 - (v / top) * (h - 10);
  s.append(svg("line", { x1: 0, x2: w, y1: y(p95), y2: y(p95), stroke: "#d29922", "stroke-dasharray": "3 3", "stroke-width": 1 }));
  s.append(svg("polyline", { points: points.map((p) => x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" "), fill: "none", stroke: "#58a6ff", "stroke-width": 1.5 }));
  for (const p of points.slice(-1)) s.append(svg("circle", { cx: x(p[0]), cy: y(p[1]), r: 2.5, fill: "#58a6ff" }));
  s.append(svg("text", { x: 2, y: 9 }, ms(top)));
  return s;
}

function renderLatency(v) {
  table("latency", ["hook", "calls", "p50", "p95", "over time (dashed: p95)"], v.latency.map((l) =>
    el("tr", { "data-testid": "latency-row", "data-hook": l.hook }, el("td", { class: "mono" }, l.hook), el("td", { class: "mono" }, l.count),
      el("td", { class: "mono" }, ms(l.p50)), el("td", { class: "mono" }, ms(l.p95)), el("td", {}, chart(l.points, l.p95)))), "no hook has run yet");
}

function renderSlowest(v) {
  const box = $("slowest");
  box.replaceChildren();
  const r = v.slowest;
  if (!r) { box.append(el("p", { class: "empty" }, "no dispatch yet")); return; }
  box.append(el("p", {}, el("span", { class: "mono" }, r.event), " · session ", el("span", { class: "mono" }, short(r.session, 14)), " · " + time(r.at) + " · ",
    el("b", {}, ms(r.totalMs)), " in all · slowest stage: ", el("span", { class: "mono" }, r.slowestStage ?? "—")));
  const stages = Object.entries(r.stages);
  const w = 460, bar = 14, left = 120;
  const s = svg("svg", { width: w, height: stages.length * (bar + 4) + 4, role: "img", "data-testid": "stages-chart" });
  const top = Math.max(...stages.map(([, t]) => t.tookMs), 0.001);
  stages.forEach(([name, t], i) => {
    const yy = 2 + i * (bar + 4);
    s.append(svg("text", { x: 0, y: yy + 12 }, name));
    s.append(svg("rect", { x: left, y: yy, height: bar, width: Math.max(1, (t.tookMs / top) * (w - left - 70)), rx: 2, fill: name === r.slowestStage ? "#f85149" : "#58a6ff" }));
    s.append(svg("text", { x: left + Math.max(1, (t.tookMs / top) * (w - left - 70)) + 6, y: yy + 12 }, ms(t.tookMs)));
  });
  box.append(s);
}

function render() {
  if (!view) return;
  renderSessions(view); renderActivity(view); renderRunning(view); renderLatency(view); renderSlowest(view);
  $("updated").textContent = "updated " + time(view.generatedAtMs);
}

for (const key of Object.keys(filters)) {
  $("f-" + key).addEventListener("change", (e) => { filters[key] = e.target.value; render(); });
}

function connect() {
  const ws = new WebSocket("ws://" + location.host + "/live?token=" + encodeURIComponent(token));
  ws.onopen = () => { $("live").textContent = "live"; $("live").className = "on"; };
  ws.onmessage = (m) => {
    const data = JSON.parse(m.data);
    if (data.error) { $("error").textContent = data.error; return; }
    $("error").textContent = "";
    view = data;
    render();
  };
  ws.onclose = () => { $("live").textContent = "reconnecting"; $("live").className = ""; setTimeout(connect, 1000); };
}
connect();
`;

export function pageHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tama · live view</title><style nonce="${nonce}">${CSS}</style></head>
<body>
<header><h1>Tama · live view</h1><span class="home" id="updated">connecting…</span><span class="problem" id="error"></span><span id="live">offline</span></header>
<main>
<section class="wide"><h2>Live OMP sessions</h2><p class="problem" id="sessions-problem"></p><table id="sessions"></table></section>
<section class="wide"><h2>Activity</h2>
<div class="filters">
<label>session <select id="f-session"></select></label><label>event <select id="f-event"></select></label>
<label>tool <select id="f-tool"></select></label><label>hook <select id="f-hook"></select></label>
<label>outcome <select id="f-outcome"></select></label>
</div>
<div class="stats"><div class="stat"><b id="n-dispatches">0</b><span>dispatches</span></div><div class="stat"><b id="n-blocked">0</b><span>blocked</span></div>
<div class="stat"><b id="n-asked">0</b><span>asked</span></div><div class="stat"><b id="deny-rate">—</b><span>deny rate</span></div></div>
<div class="scroll"><table id="activity"></table></div></section>
<section><h2>Per-hook latency</h2><table id="latency"></table></section>
<section><h2>Slowest recent dispatch</h2><div id="slowest"></div></section>
<section class="wide"><h2>Hooks running now</h2><table id="running"></table>
<h2 class="later">Each session's last abandonment</h2><table id="abandoned"></table></section>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body></html>
`;
}
