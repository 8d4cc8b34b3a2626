"use strict";
// What both pages share: the page's session (who is signed in and its CSRF token), the one way to
// call the server (JSON, with the token: the server refuses a change without them), login, logout.
const $ = s => document.querySelector(s);
const say = text => { $("#message").textContent = text; };
const session = { user: null, csrf: null };

function request(method, url, body, keepalive) {
  const headers = { "Content-Type": "application/json" };
  if (session.csrf) headers["X-CSRF-Token"] = session.csrf;
  return fetch(url, { method, headers, keepalive, credentials: "same-origin",
                      body: body === undefined ? undefined : JSON.stringify(body) });
}

async function call(method, url, body) {
  const r = await request(method, url, body, false);
  return { status: r.status, data: r.status === 204 ? {} : await r.json() };
}

function signIn(user, csrf) {
  session.user = user;
  session.csrf = csrf;
  $("#me").textContent = user || "";
  $("#login").hidden = user !== null;
  $("#main").hidden = user === null;
}

/** Whether someone is signed in; after a reload the page asks the server, and knows user and token again. */
async function signedIn() {
  if (session.csrf) return true;
  const r = await call("GET", "/api/session");
  if (r.status !== 200) { signIn(null, null); return false; }
  signIn(r.data.user, r.data.csrf);
  return true;
}

/** Wires the login form and the logout button: {@code shown} fills the page, {@code leaving} lets go of what it holds. */
function sessionControls(shown, leaving) {
  $("#login").onsubmit = async e => {
    e.preventDefault();
    const r = await call("POST", "/login", { user: $("#login-user").value, password: $("#login-password").value });
    if (r.status !== 200) { say(r.data.error); return; }
    signIn(r.data.user, r.data.csrf);
    say("");
    await shown();
  };
  $("#logout").onclick = async () => {
    await leaving();
    await call("POST", "/logout", {});
    signIn(null, null);
    say("Logged out.");
  };
}
