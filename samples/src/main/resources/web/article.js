"use strict";
const [, , type, id] = location.pathname.split("/");
const api = `/api/articles/${type}/${id}`;
let article = null, editing = null, heartbeatTimer = null;

// The server sanitises every article it stores and sends (jsoup Safelist): its HTML is rendered as HTML.
const nodesOf = html => new DOMParser().parseFromString(html, "text/html").body.childNodes;
const innerOf = html => { const t = document.createElement("template"); t.innerHTML = html; return t.content.firstElementChild.innerHTML; };

async function load() {
  if (!await signedIn()) return null;
  const r = await call("GET", api);
  if (r.status === 401) { signIn(null, null); return null; }
  if (r.status !== 200) { say(r.data.error); return null; }
  article = r.data;
  render();
  return article;
}

/** The whole article; each paragraph in a box with its state: mine, someone else's (greyed), or an Edit button. */
function render() {
  const a = article.articleLock;
  $("#article-holder").textContent = a ? `The article is being edited by ${a.user} since ${a.since}` : "";
  const box = $("#paragraphs");
  box.replaceChildren();
  for (const node of [...nodesOf(article.html)]) {
    const pid = node.nodeType === Node.ELEMENT_NODE ? node.getAttribute("data-pid") : null;
    if (!pid) { box.append(document.importNode(node, true)); continue; }
    const lock = article.paragraphLocks[pid];
    const div = document.createElement("div");
    div.className = "para";
    div.dataset.pid = pid;
    const text = document.createElement("div");
    text.className = "text";
    text.append(document.importNode(node, true));
    div.append(text);
    if (lock && lock.user !== session.user) {
      div.classList.add("locked-other");
      const who = document.createElement("div");
      who.className = "holder";
      who.textContent = `being edited by ${lock.user}`;
      div.append(who);
    } else if (lock || (editing && editing.paragraph === pid)) {
      div.classList.add("mine");
    } else {
      const b = document.createElement("button");
      b.className = "edit-para";
      b.textContent = "Edit";
      b.onclick = () => edit({ paragraphs: [pid] }, pid);
      div.append(b);
    }
    box.append(div);
  }
}

/**
 * Takes the lock, then loads the article: what it holds from then on nobody else can change, so that
 * load is what the editor starts from (and its USN the save's base).
 */
async function edit(request, paragraph) {
  if (editing) { say("Finish the current edit first."); return; }
  const r = await call("POST", `${api}/locks`, request);
  if (r.status === 409) { say(`Refused: ${r.data.error}`); await load(); return; }
  if (r.status !== 200) { say(r.data.error); return; }
  const lock = r.data.locks[0];
  editing = { lockId: lock.lockId, paragraph, baseUsn: null };
  heartbeatTimer = setInterval(heartbeat, lock.heartbeatEveryMillis);
  if (!await load()) { await release(); return; }
  editing.baseUsn = article.usn;
  const area = $("#editor-text");
  const held = paragraph && article.paragraphs.find(p => p.id === paragraph).html;
  // A bare newline is a line only inside a <pre>: elsewhere the editor must not keep one (the article shows it as a space).
  area.classList.toggle("pre", Boolean(held && held.startsWith("<pre")));
  if (paragraph) {
    area.innerHTML = innerOf(held);
  } else {
    area.innerHTML = article.html;
    // Paragraphs others hold are read-only here; the server refuses a save that changes them anyway.
    for (const p of area.querySelectorAll("[data-pid]")) markHeld(p, article.paragraphLocks);
  }
  $("#editor").hidden = false;
  say(paragraph ? "Editing a paragraph." : "Editing the article.");
}

/** A paragraph in the article editor that another user holds: read-only, greyed, with the holder's name. */
function markHeld(p, paragraphLocks) {
  const lock = paragraphLocks[p.dataset.pid];
  if (lock && lock.user !== session.user) {
    p.contentEditable = "false";
    p.classList.add("locked-other");
    p.dataset.holder = lock.user;
  }
}

async function heartbeat() {
  if (!editing) return;
  const r = await call("POST", `/api/locks/${editing.lockId}/heartbeat`, {});
  if (r.status !== 200) lapsed(`Your edit lock lapsed (${r.data.error}).`);
}

/** The lock is gone: what was typed moves to the kept box, where only the user discards it. */
function lapsed(why) {
  clearInterval(heartbeatTimer);
  editing = null;
  $("#kept-text").replaceChildren(...$("#editor-text").childNodes);
  $("#kept").hidden = false;
  $("#editor").hidden = true;
  say(`${why} Your text is kept below.`);
}

async function save() {
  if (!editing) { say("You hold no lock."); return; }
  const r = await call("POST", `/api/locks/${editing.lockId}/save`, { html: $("#editor-text").innerHTML, baseUsn: editing.baseUsn });
  if (r.status !== 200) {
    if (!editing.paragraph && await broughtUpToDate()) {
      say(`Not saved: ${r.data.error}. The paragraphs others edited are brought up to date in your editor, and your`
        + " text is kept: check it and save again.");
    } else {
      say(`Not saved: ${r.data.error}. Your text is kept in the editor.`);
    }
    return;
  }
  await release();
  say("Saved.");
}

/**
 * After a refused article save, if the article moved on since it was loaded (someone saved a paragraph
 * they held, read-only here): those paragraphs as they are now, the rest as typed, on the new USN.
 * False if the article had not changed.
 */
async function broughtUpToDate() {
  const r = await call("GET", api);
  if (r.status !== 200 || !editing || r.data.usn === editing.baseUsn) return false;
  const now = new Map(r.data.paragraphs.map(p => [p.id, p.html]));
  for (const held of $("#editor-text").querySelectorAll("[data-pid].locked-other")) {
    if (!now.has(held.dataset.pid)) continue;
    const fresh = document.importNode(nodesOf(now.get(held.dataset.pid))[0], true);
    markHeld(fresh, r.data.paragraphLocks);
    held.replaceWith(fresh);
  }
  editing.baseUsn = r.data.usn;
  article = r.data;
  render();
  return true;
}

async function release() {
  if (editing) await call("POST", `/api/locks/${editing.lockId}/release`, {});
  clearInterval(heartbeatTimer);
  editing = null;
  $("#editor").hidden = true;
  await load();
}

sessionControls(load, async () => { if (editing) await release(); });
$("#editor-text").addEventListener("keydown", e => {
  // Enter in a paragraph is a line break: a new block would end the paragraph (the server refuses that).
  // A <br> in a <p>; a newline in a <pre>, whose editor alone keeps white space (class "pre").
  if (e.key === "Enter" && editing && editing.paragraph) { e.preventDefault(); document.execCommand("insertLineBreak"); }
});
$("#edit-article").onclick = () => edit({}, null);
$("#save").onclick = save;
$("#cancel").onclick = async () => { await release(); say("Cancelled."); };
$("#dismiss").onclick = () => { $("#kept").hidden = true; $("#kept-text").replaceChildren(); };
// Closing the window gives the lock back: a keepalive request outlives the page (and, unlike a beacon, carries the headers).
window.addEventListener("pagehide", () => { if (editing) request("POST", `/api/locks/${editing.lockId}/release`, {}, true); });
setInterval(() => { if (session.user) load(); }, 1500);
load();
