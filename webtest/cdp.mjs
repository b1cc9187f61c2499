// A minimal DevTools protocol client over --remote-debugging-pipe, for the one
// test playwright cannot do: Chromium refuses to prerender in a page that a
// debugger attached to directly, and playwright attaches that way. Attaching
// through the tab target (as Chrome's own DevTools does) leaves prerendering on.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ARGS, UA, env } from "./lib.mjs";

export async function rawBrowser() {
  const dir = mkdtempSync(join(tmpdir(), "reviewd-cdp-"));
  const proc = spawn(env.chromium, [...ARGS, "--remote-debugging-pipe", "--user-data-dir=" + dir, "--user-agent=" + UA, "about:blank"],
    { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], detached: true });
  const out = proc.stdio[3], inp = proc.stdio[4];
  let id = 0, buf = "";
  const waits = new Map(), seen = [], subs = new Set();
  inp.on("data", (d) => {
    buf += d.toString();
    for (let i; (i = buf.indexOf("\0")) >= 0; buf = buf.slice(i + 1)) {
      const m = JSON.parse(buf.slice(0, i));
      if (m.id && waits.has(m.id)) {
        const w = waits.get(m.id);
        waits.delete(m.id);
        if (m.error) w.reject(new Error(m.error.message)); else w.resolve(m.result);
      } else {
        seen.push(m);
        for (const f of subs) f(m);
      }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const n = ++id;
    waits.set(n, { resolve, reject });
    out.write(JSON.stringify({ id: n, method, params, sessionId }) + "\0");
  });
  // waitFor resolves with the first message (seen or coming) that pred accepts.
  const waitFor = (pred, ms = 15000) => new Promise((resolve, reject) => {
    const hit = seen.find(pred);
    if (hit) return resolve(hit);
    const t = setTimeout(() => { subs.delete(f); reject(new Error("cdp: timeout")); }, ms);
    const f = (m) => { if (pred(m)) { clearTimeout(t); subs.delete(f); resolve(m); } };
    subs.add(f);
  });
  // Attach to tabs, and through each tab to its pages (prerendered ones too).
  subs.add((m) => {
    if (m.method === "Target.attachedToTarget" && m.params.targetInfo.type === "tab") {
      send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, m.params.sessionId).catch(() => {});
    }
  });
  await send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: "tab" }] });
  const page = await waitFor((m) => m.method === "Target.attachedToTarget" && m.params.targetInfo.type === "page");
  const session = page.params.sessionId;
  await send("Page.enable", {}, session);
  await send("Preload.enable", {}, session);
  await send("Page.bringToFront", {}, session);
  const evaluate = async (expression, s = session) =>
    (await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, s)).result.value;
  // close asks Chromium to shut down (it flushes its profile and ends its helper
  // processes), waits for it to exit, ends anything left of its process group, and
  // then removes the profile folder. A helper process still writing there is waited
  // for; a folder that cannot be removed is reported, not a test failure.
  const exited = new Promise((r) => proc.once("exit", r));
  const close = async () => {
    await Promise.race([send("Browser.close").catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
    const killed = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(killed);
    try { process.kill(-proc.pid, "SIGKILL"); } catch { /* the group is gone */ }
    for (let i = 0; ; i++) {
      try {
        rmSync(dir, { recursive: true, force: true });
        return;
      } catch (e) {
        if (i >= 50) { console.warn(`cdp: profile folder ${dir} not removed: ${e.code}`); return; }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  return { send, waitFor, evaluate, session, close, seen };
}
