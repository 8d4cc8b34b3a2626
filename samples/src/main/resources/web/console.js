"use strict";
// The operator's console: everything is read from /api/console every two seconds; every value is
// put into the page as text, never as HTML.
let auditResource = null;
/** The lock tables' filters (sent to the server, which filters, counts and pages) and each table's first row. */
let filters = { holder: "", contains: "", lockId: "", order: "oldest" };
const offsets = { edit: 0, tree: 0, object: 0, dispenser: 0, feed: 0 };
const PAGE = 50;

const age = seconds => seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${Math.floor(seconds / 60)} min`
  : `${Math.floor(seconds / 3600)} h ${Math.floor(seconds % 3600 / 60)} min`;

/** A time from the server (UTC) as this browser's local time, to the second. */
const when = iso => iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" }) : "";

/**
 * Fills a table's body with one row per item; each cell is text (or an element built here). Rows and
 * cells are updated in place, and a cell whose text did not change keeps its nodes: a selection or a
 * scroll position survives the refresh every two seconds.
 */
function fill(id, items, cells) {
  const body = $(`#${id} tbody`);
  if (!items || items.length === 0) {
    if (body.dataset.state !== "empty") {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = $(`#${id} thead tr`).children.length;
      td.className = "empty";
      td.textContent = "none";
      tr.append(td);
      body.replaceChildren(tr);
      body.dataset.state = "empty";
    }
    return;
  }
  if (body.dataset.state !== "rows") body.replaceChildren();
  body.dataset.state = "rows";
  while (body.rows.length > items.length) body.lastElementChild.remove();
  items.forEach((item, i) => {
    const tr = body.rows[i] || body.appendChild(document.createElement("tr"));
    const values = cells(item);
    while (tr.cells.length > values.length) tr.lastElementChild.remove();
    values.forEach((value, j) => {
      const td = tr.cells[j] || tr.appendChild(document.createElement("td"));
      if (value instanceof Element) {
        const old = td.firstElementChild;
        if (old && td.childNodes.length === 1 && old.outerHTML === value.outerHTML) {
          old.onclick = value.onclick; // the same element, for this row's item now
        } else {
          td.replaceChildren(value);
        }
      } else {
        const text = value == null ? "" : String(value);
        if (td.childElementCount > 0 || td.textContent !== text) td.textContent = text;
      }
    });
  });
}

function auditButton(resource) {
  const b = document.createElement("button");
  b.className = "show-audit";
  b.textContent = "audit";
  b.onclick = () => { $("#audit-resource").value = resource; showAudit(resource); };
  return b;
}

/**
 * For an operator with the lock-breaking role: ends an abandoned lock (an edit, tree or cooperative
 * lock), once confirmed with a reason; {@code told} says when its holder learns of it.
 */
function breakButton(kind, holder, where, told, path, body = {}) {
  const b = document.createElement("button");
  b.className = "break-lock";
  b.textContent = "break…";
  b.onclick = async () => {
    const reason = prompt(`Break ${holder}'s ${kind} on ${where}? ${holder} loses it at once and is told who broke it`
      + ` and why ${told}. Why:`);
    if (reason === null) return; // cancelled: nothing happens
    const r = await call("POST", path, { ...body, reason });
    say(r.status === 200 ? `Broke ${holder}'s ${kind} on ${where}.` : r.data.error);
    await refresh();
  };
  return b;
}

/** For a dispenser admin: voids an issued number, asked for and confirmed with a reason the register keeps. */
function voidButton(d) {
  const b = document.createElement("button");
  b.className = "void-number";
  b.textContent = "void…";
  b.onclick = async () => {
    const number = prompt(`Void which issued number of ${d.name}?`);
    if (number === null || number.trim() === "") return;
    const reason = prompt(`Void ${d.name} number ${number.trim()}? It stays in the register as void, with your name. Why:`);
    if (reason === null) return; // cancelled: nothing happens
    const r = await call("POST", `/api/dispensers/${encodeURIComponent(d.name)}/void`, { number: Number(number.trim()), reason });
    say(r.status === 200 ? `Voided ${d.name} number ${r.data.voided}.` : r.data.error);
    await refresh();
  };
  return b;
}

/** "showing 51–100 of 1,000" above a table, with the buttons to the pages before and after. */
function pager(table, kind, page) {
  const p = $(`#${table}-pager`);
  const first = page.items.length === 0 ? 0 : page.offset + 1;
  const text = `showing ${first.toLocaleString()}–${(page.offset + page.items.length).toLocaleString()} of ${page.total.toLocaleString()}`;
  if (p.dataset.text === text) return;
  p.dataset.text = text;
  const span = document.createElement("span");
  span.className = "shown";
  span.textContent = text + " ";
  const button = (label, offset, enabled) => {
    const b = document.createElement("button");
    b.className = label === "‹ previous" ? "page-previous" : "page-next";
    b.textContent = label;
    b.disabled = !enabled;
    b.onclick = () => { offsets[kind] = offset; refresh(); };
    return b;
  };
  p.replaceChildren(span, button("‹ previous", Math.max(0, page.offset - PAGE), page.offset > 0),
    button("next ›", page.offset + PAGE, page.offset + page.items.length < page.total));
}

function consoleQuery() {
  const q = new URLSearchParams({ holder: filters.holder, contains: filters.contains, lockId: filters.lockId, order: filters.order,
    editOffset: offsets.edit, treeOffset: offsets.tree, objectOffset: offsets.object, dispenserOffset: offsets.dispenser,
    feedOffset: offsets.feed });
  return "/api/console?" + q;
}

async function refresh() {
  if (!await signedIn()) return;
  const r = await call("GET", consoleQuery());
  if (r.status === 401) { signIn(null, null); return; }
  if (r.status !== 200) { say(r.data.error); return; }
  const c = r.data;
  $("#refreshed").textContent = new Date().toLocaleTimeString();
  pager("edit-locks", "edit", c.editLocks);
  pager("tree-locks", "tree", c.treeLocks);
  pager("object-locks", "object", c.objectLocks);
  fill("edit-locks", c.editLocks.items, l => {
    const link = document.createElement("a");
    const [type, article] = l.article.split(/:(.*)/s);
    link.href = `/edit/${encodeURIComponent(type)}/${encodeURIComponent(article)}`;
    link.textContent = l.article;
    const paragraph = !l.paragraph ? "(whole article)" : l.paragraphWords ? `“${l.paragraphWords}” (${l.paragraph})` : l.paragraph;
    const resource = l.paragraph ? `${l.article}#${l.paragraph}` : l.article;
    return [link, paragraph, l.user, age(l.ageSeconds), when(l.expiresAt), auditButton(resource),
            c.mayBreak ? breakButton("edit lock", l.user, l.paragraph ? `${l.article}, ${paragraph}` : l.article,
              "at the next heartbeat", `/api/locks/${encodeURIComponent(l.lockId)}/break`) : ""];
  });
  fill("tree-locks", c.treeLocks.items, t => [t.owner, t.nodes.join(", "), when(t.since), t.lapsed ? `${when(t.until)} (lapsed)` : when(t.until),
    c.mayBreak && !t.lapsed ? breakButton("tree lock", t.owner, t.nodes.join(", "), "at the next heartbeat",
      `/api/tree-locks/${encodeURIComponent(t.lockToken)}/break`) : ""]);
  fill("object-locks", c.objectLocks.items, o => [o.object, o.holder, o.owner, when(o.expiresAt),
    c.mayBreak ? breakButton("cooperative lock", o.holder, o.object, "at the next save",
      `/api/objects/${encodeURIComponent(o.className)}/${encodeURIComponent(o.id)}/lock/break`, { lockToken: o.lockToken }) : ""]);
  $("#lock-breaks-section").hidden = !c.mayBreak && c.lockBreaks.length === 0;
  fill("lock-breaks", c.lockBreaks, b => [when(b.brokenAt), b.kind, b.holder, b.lockedWhat, b.brokenBy, b.reason]);
  $("#dispensers-refused").hidden = c.dispensers !== null;
  $("#dispensers-refused").textContent = c.dispensersRefused || "";
  if (c.dispensers) pager("dispensers", "dispenser", c.dispensers);
  fill("dispensers", c.dispensers ? c.dispensers.items : [], d => {
    const missing = document.createElement("span");
    missing.textContent = d.report.missing.length === 0 ? "none" : d.report.missing.join(", ");
    if (d.report.missing.length > 0) missing.className = "bad";
    const doubt = document.createElement("span");
    doubt.textContent = d.report.inDoubtCount === 0 ? "none"
      : d.report.inDoubt.map(n => `${n.number} (${n.issuedBy}, ${n.issuedAt})`).join(", ")
        + (d.report.inDoubtCount > d.report.inDoubt.length ? ` … ${d.report.inDoubtCount} in all` : "");
    if (d.report.inDoubtCount > 0) doubt.className = "bad";
    return [d.name, d.current, d.report.period || "(no reset)", d.report.issued, d.report.voided, missing, doubt, voidButton(d)];
  });
  $("#scope").hidden = c.scope !== "own";
  $("#feed-clients-refused").hidden = c.feedClients !== null;
  $("#feed-clients-refused").textContent = c.feedClientsRefused || "";
  $("#feed-clients").hidden = c.feedClients === null;
  $("#feed-clients-pager").hidden = c.feedClients === null;
  $("#dispensers-pager").hidden = c.dispensers === null;
  if (c.feedClients) pager("feed-clients", "feed", c.feedClients);
  fill("feed-clients", c.feedClients ? c.feedClients.items : [], f => [f.client, f.position, f.pending,
    f.oldestPendingMillis == null ? "" : age(Math.floor(f.oldestPendingMillis / 1000)), f.heldBy || ""]);
  if (auditResource) await showAudit(auditResource);
}

async function showAudit(resource) {
  auditResource = resource;
  const r = await call("GET", `/api/console/audit?resource=${encodeURIComponent(resource)}`);
  if (r.status !== 200) { say(r.data.error); return; }
  fill("audit", r.data.entries, e => [when(e.at), e.user, e.resource, e.operation, e.outcome, e.detail]);
}

sessionControls(refresh, async () => {});
$("#audit-form").onsubmit = e => { e.preventDefault(); showAudit($("#audit-resource").value.trim()); };
$("#lock-filter").onsubmit = e => {
  e.preventDefault();
  filters = { holder: $("#filter-holder").value.trim(), contains: $("#filter-contains").value.trim(),
    lockId: $("#filter-lock-id").value.trim(), order: $("#filter-order").value };
  offsets.edit = offsets.tree = offsets.object = 0;
  const kind = $("#filter-kind").value;
  for (const k of ["edit", "tree", "object"]) $(`#${k}-section`).hidden = kind !== "all" && kind !== k;
  refresh();
};
setInterval(() => { if (session.user) refresh(); }, 2000);
refresh();
