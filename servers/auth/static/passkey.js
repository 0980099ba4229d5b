// Passkey sign-in and enrolment: base64url <-> ArrayBuffer around navigator.credentials.
"use strict";
(function () {
  function b64u(buf) {
    var s = "", b = new Uint8Array(buf);
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function unb64u(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), b = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return b.buffer;
  }
  function status(msg) { document.getElementById("status").textContent = msg; }
  // waitWords says a Retry-After of n seconds in words.
  function waitWords(n) {
    if (!(n > 0)) return "a moment";
    if (n < 60) return n === 1 ? "1 second" : n + " seconds";
    var m = Math.ceil(n / 60);
    return m === 1 ? "1 minute" : m + " minutes";
  }
  // post sends JSON and returns the JSON answer; the status is checked before the body is
  // parsed, so a refusal that is not JSON (a proxy's page, a rate limit) still reads well.
  async function post(url, csrf, body) {
    var r = await fetch(url, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body || {}) });
    var text = await r.text(), j = null;
    try { j = JSON.parse(text); } catch (e) { j = null; }
    if (!r.ok) {
      if (j && (j.error_description || j.error)) throw new Error(j.error_description || j.error);
      if (r.status === 429) throw new Error("Too many attempts: wait " + waitWords(parseInt(r.headers.get("Retry-After"), 10)) + " and try again.");
      throw new Error("The server answered HTTP " + r.status + ": reload the page and try again.");
    }
    if (!j) throw new Error("The server's answer was not understood: reload the page and try again.");
    return j;
  }
  function ext(c) { try { return c.getClientExtensionResults(); } catch (e) { return {}; } }

  // assert signs in with a passkey through begin and finish and follows the answer's next.
  async function assert(begin, finish, csrf) {
    var opts = (await post(begin, csrf)).publicKey;
    opts.challenge = unb64u(opts.challenge);
    (opts.allowCredentials || []).forEach(function (c) { c.id = unb64u(c.id); });
    var c = await navigator.credentials.get({ publicKey: opts });
    var r = c.response;
    var res = await post(finish, csrf, { id: c.id, rawId: b64u(c.rawId), type: c.type,
      clientExtensionResults: ext(c), authenticatorAttachment: c.authenticatorAttachment,
      response: { clientDataJSON: b64u(r.clientDataJSON), authenticatorData: b64u(r.authenticatorData),
        signature: b64u(r.signature), userHandle: r.userHandle ? b64u(r.userHandle) : null } });
    location.assign(res.next);
  }
  function signIn(btn) {
    var q = "?id=" + encodeURIComponent(btn.dataset.id);
    return assert("/login/begin" + q, "/login/finish" + q, btn.dataset.csrf);
  }
  function consoleSignIn(btn) {
    return assert("/console/signin/begin", "/console/signin/finish", btn.dataset.csrf);
  }

  async function enroll(btn) {
    var csrf = btn.dataset.csrf, code = document.getElementById("code").value;
    var opts = (await post("/enroll/begin", csrf, { code: code })).publicKey;
    opts.challenge = unb64u(opts.challenge);
    opts.user.id = unb64u(opts.user.id);
    (opts.excludeCredentials || []).forEach(function (c) { c.id = unb64u(c.id); });
    var c = await navigator.credentials.create({ publicKey: opts });
    var r = c.response;
    var res = await post("/enroll/finish", csrf, { id: c.id, rawId: b64u(c.rawId), type: c.type,
      clientExtensionResults: ext(c), authenticatorAttachment: c.authenticatorAttachment,
      response: { clientDataJSON: b64u(r.clientDataJSON), attestationObject: b64u(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : [] } });
    status(res.done);
    document.getElementById("status").style.color = "#060";
    document.body.dataset.enrolled = "yes";
  }

  function wire(idName, fn) {
    var btn = document.getElementById(idName);
    if (!btn) return;
    btn.addEventListener("click", function () {
      btn.disabled = true;
      status("");
      fn(btn).catch(function (e) { status(e.message || String(e)); btn.disabled = false; });
    });
  }
  wire("signin", signIn);
  wire("console-signin", consoleSignIn);
  wire("enroll", enroll);
})();
