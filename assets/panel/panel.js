// reviewd panel script: keyboard moderation, inline actions and live counts. The
// pages work without it; every action it takes is a call of the admin API
// (/admin/v1/) with the session's CSRF token, so the same checks apply.
(() => {
  "use strict";
  const body = document.body;
  // The set-password page: the link's token travels in the fragment (never sent to
  // a server or a referrer); copy it into the form and drop it from the address.
  const linkForm = document.querySelector("form[data-link-token]");
  if (linkForm) {
    const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      linkForm.querySelector("#link_token").value = decodeURIComponent(m[1]);
      history.replaceState(null, "", location.pathname);
    }
  }
  // A secret shown once: the copy button puts it on the clipboard.
  // (One listener on the page: sections swapped in later keep working.)
  const showCopy = () => { for (const b of document.querySelectorAll("button[data-copy]")) b.hidden = false; };
  showCopy();
  document.addEventListener("click", async (ev) => {
    const b = ev.target.closest && ev.target.closest("button[data-copy]");
    if (!b) return;
    const out = b.parentElement.querySelector("[data-copied]");
    try {
      await navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent);
      if (out) out.textContent = b.dataset.done || "✓";
    } catch (e) {
      if (out) out.textContent = String(e.message || e);
    }
  });
  // A component preview (a frame without scripts of this origin) grows to its
  // content, so nothing of it is cut off; without this script it scrolls.
  const fit = (f) => {
    try {
      const h = f.contentDocument && f.contentDocument.documentElement.scrollHeight;
      if (h) f.style.height = (h + 4) + "px";
    } catch { /* not readable: keep the scrolling frame */ }
  };
  const fitFrames = () => {
    for (const f of document.querySelectorAll("iframe[data-fit]")) {
      f.addEventListener("load", () => fit(f));
      fit(f);
    }
  };
  fitFrames();
  // Themes: a changed choice swaps the preview and the save form (the page answer
  // of the same GET form, read and both sections taken over) and keeps it in the
  // address.
  const themeForm = document.querySelector("form[data-theme-form]");
  if (themeForm) {
    themeForm.addEventListener("change", async () => {
      const url = themeForm.action + "?" + new URLSearchParams(new FormData(themeForm));
      const res = await fetch(url, { credentials: "same-origin" });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      for (const sel of ["[data-theme-preview]", "[data-theme-save]", "[data-theme-embed]"]) {
        const next = doc.querySelector(sel), now = document.querySelector(sel);
        if (next && now) now.replaceWith(document.adoptNode(next));
      }
      showCopy();
      fitFrames();
      history.replaceState(null, "", url);
    });
  }
  const csrf = body.dataset.csrf;
  if (!csrf) return;

  const api = async (method, path, data) => {
    const res = await fetch(path, {
      method, credentials: "same-origin",
      headers: { "X-Service-CSRF": csrf, "Accept": "application/json", ...(data ? { "Content-Type": "application/json" } : {}) },
      body: data ? JSON.stringify(data) : undefined,
    });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* fragment or empty */ }
    if (!res.ok) throw Object.assign(new Error((json && (json.error + (json.detail ? " / " + json.detail : ""))) || res.status), { status: res.status });
    return json === null ? text : json;
  };

  const say = (msg, bad) => {
    let el = document.querySelector("[data-say]");
    if (!el) {
      el = document.createElement("p");
      el.setAttribute("data-say", "");
      el.setAttribute("role", bad ? "alert" : "status");
      document.querySelector("main").prepend(el);
    }
    el.className = bad ? "error" : "notice";
    el.textContent = msg;
  };

  // Live counts: the waiting count in the menu and on the page.
  const live = document.querySelectorAll("[data-live=waiting]");
  const setWaiting = (n) => { for (const el of live) el.textContent = String(n); };
  let liveOff = false;
  const refresh = async () => {
    if (liveOff || !live.length || document.hidden) return;
    try {
      const q = await api("GET", "/admin/v1/moderation/queue?page_size=1");
      setWaiting(q.counters.waiting);
    } catch (e) { if (e.status === 403 || e.status === 401) liveOff = true; }
  };
  refresh();
  setInterval(refresh, 20000);

  const queue = document.querySelector("[data-queue]");
  if (!queue) return;

  // ---- moderation queue ----
  const list = queue.querySelector(".qlist");
  const pane = queue.querySelector("[data-pane]");
  const mode = queue.dataset.mode;
  const KEY = "reviewd.panel.selected";
  const items = () => [...list.querySelectorAll("li[data-id]")];
  const current = () => list.querySelector("li.current") || items()[0] || null;
  let loading = null;

  const remember = () => {
    const sel = items().filter((li) => li.querySelector("input").checked).map((li) => li.dataset.id);
    sessionStorage.setItem(KEY, JSON.stringify(sel));
    queue.querySelector("[data-selected-count]").textContent = String(sel.length);
  };
  try {
    const sel = new Set(JSON.parse(sessionStorage.getItem(KEY) || "[]"));
    for (const li of items()) if (sel.has(li.dataset.id)) li.querySelector("input").checked = true;
  } catch { /* nothing kept */ }
  remember();
  list.addEventListener("change", remember);

  const focus = async (li) => {
    if (!li) { pane.innerHTML = ""; return; }
    for (const x of items()) { x.classList.toggle("current", x === li); if (x === li) x.setAttribute("aria-current", "true"); else x.removeAttribute("aria-current"); }
    li.scrollIntoView({ block: "nearest" });
    const id = li.dataset.id;
    history.replaceState(null, "", `/panel/queue?mode=${mode}&at=${id}`);
    if (pane.querySelector(`[data-review="${id}"]`)) return;
    const p = loading = api("GET", "/panel/queue/item/" + id);
    const html = await p;
    if (loading === p) { pane.innerHTML = html; body.dataset.shown = id; }
  };
  const move = (step) => {
    const all = items(), i = all.indexOf(current());
    const next = all[Math.min(all.length - 1, Math.max(0, i + step))];
    if (next) focus(next);
  };
  const gone = (ids) => {
    const all = items();
    const cur = current();
    let next = null;
    if (cur && ids.includes(cur.dataset.id)) {
      const i = all.indexOf(cur);
      next = all.slice(i + 1).find((li) => !ids.includes(li.dataset.id)) || all.slice(0, i).reverse().find((li) => !ids.includes(li.dataset.id));
    }
    for (const li of all) if (ids.includes(li.dataset.id)) li.remove();
    for (const el of live) el.textContent = String(Math.max(0, (parseInt(el.textContent, 10) || 0) - ids.length));
    remember();
    if (!items().length) { if (!held) location.reload(); return; }
    if (next) focus(next);
  };

  // Approve and reject are held by the server for 10 s: the row leaves at once and
  // a toast offers Undo (button or u) until the decision takes effect. Undo puts
  // the row back where it was. The plain forms post the same panel route.
  const WINDOW = 10000;
  let held = null;
  const panelPost = async (path, fields) => {
    const res = await fetch(path, {
      method: "POST", credentials: "same-origin", headers: { "Accept": "application/json" },
      body: new URLSearchParams({ csrf, ...fields }),
    });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw Object.assign(new Error((json && (json.error + (json.detail ? " / " + json.detail : ""))) || res.status), { status: res.status });
    return json;
  };
  const settle = () => {
    if (!held) return;
    clearTimeout(held.timer);
    held.el.remove();
    held = null;
    if (!items().length) location.reload();
  };
  const undo = async () => {
    const h = held;
    if (!h) return;
    try {
      await panelPost(`/panel/reviews/${h.id}/undo`, {});
    } catch (e) { settle(); say(e.message, true); return; }
    clearTimeout(h.timer);
    h.el.remove();
    held = null;
    list.insertBefore(h.li, h.after && h.after.parentNode === list ? h.after : null);
    for (const el of live) el.textContent = String((parseInt(el.textContent, 10) || 0) + 1);
    remember();
    body.dataset.undone = h.id;
    say(queue.dataset.undone);
    focus(h.li);
  };
  const toast = (d, li, after, left) => {
    settle();
    const el = document.createElement("div");
    el.className = "toast";
    el.setAttribute("role", "status");
    el.setAttribute("data-toast", d.review);
    const text = document.createElement("span");
    text.textContent = d.event === "reject" ? queue.dataset.heldReject : queue.dataset.heldApprove;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.innerHTML = "<kbd>u</kbd> ";
    b.append(queue.dataset.undoLabel);
    b.addEventListener("click", undo);
    el.append(text, " · ", b);
    document.body.append(el);
    held = { id: d.review, li, after, el, timer: setTimeout(settle, Math.max(0, left)) };
  };
  const decide = async (event, reason) => {
    const li = current();
    if (!li) return;
    // A rejection needs a chosen reason (the list starts empty).
    if (event === "reject" && !reason) { say(queue.dataset.reasonRequired, true); return; }
    const id = li.dataset.id;
    const start = performance.now();
    try {
      const d = await panelPost(`/panel/reviews/${id}/transition`, { event, reason: reason || "" });
      body.dataset.done = String((parseInt(body.dataset.done || "0", 10)) + 1);
      toast(d, li, li.nextElementSibling, WINDOW - (performance.now() - start));
      gone([id]);
    } catch (e) { say(e.message, true); }
  };

  // Forms of the focused review and the bulk form act inline.
  queue.addEventListener("submit", async (ev) => {
    const f = ev.target;
    if (f.dataset.action) {
      ev.preventDefault();
      await decide(f.dataset.action, f.dataset.action === "reject" ? f.elements.reason.value : "");
    } else if (f.id === "bulk") {
      ev.preventDefault();
      const action = ev.submitter && ev.submitter.value;
      const ids = items().filter((li) => li.querySelector("input").checked).map((li) => li.dataset.id);
      if (!ids.length) return;
      if (action === "reject" && !f.elements.reason.value) { say(queue.dataset.reasonRequired, true); f.elements.reason.focus(); return; }
      try {
        const out = await api("POST", "/admin/v1/moderation/bulk", { ids, action, reason: action === "reject" ? f.elements.reason.value : "" });
        gone(ids.filter((id) => !out.skipped_ids.includes(id)));
        say(`${out.count} ✓`);
      } catch (e) { say(e.message, true); }
    }
  });
  list.addEventListener("click", (ev) => {
    const a = ev.target.closest("a");
    if (a && !ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); focus(a.closest("li")); }
  });

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t.tagName === "SELECT" && t.closest("form[data-action=reject]")) {
      if (ev.key === "Enter") { ev.preventDefault(); decide("reject", t.value); }
      else if (ev.key === "Escape") { ev.preventDefault(); t.blur(); }
      return;
    }
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.isContentEditable) return;
    switch (ev.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "a": decide("approve"); break;
      case "u": undo(); break;
      case "r": { const s = pane.querySelector("form[data-action=reject] select"); if (s) s.focus(); break; }
      case "x": { const li = current(); if (li) { const c = li.querySelector("input"); c.checked = !c.checked; remember(); } break; }
      default: return;
    }
    ev.preventDefault();
  });
  const first = current();
  if (first) { body.dataset.shown = first.dataset.id; first.scrollIntoView({ block: "nearest" }); }
  performance.mark("panel-ready");
  body.dataset.ready = "1";
})();
