// Shared helpers of the browser tests. They run against a real `reviewd demo`
// process started by app/cli/browser_test.go, which passes everything in the
// environment:
//
//   REVIEWD_WEBTEST_BASE   http://localhost:<port> (the demo channels' verified domain)
//   REVIEWD_WEBTEST_DEMO   path of demo-data/demo.json (keys of the demo brand)
//   REVIEWD_WEBTEST_BIN    the reviewd binary (for `reviewd jobs run media`)
//   REVIEWD_WEBTEST_CWD    the folder `reviewd demo` runs in (holds demo-data/)
//   REVIEWD_WEBTEST_INVITE the review link of an invitation e-mail
//   REVIEWD_WEBTEST_ORDER, REVIEWD_WEBTEST_EMAIL  an order ready for the order check
//   REVIEWD_WEBTEST_REVISE "<order> <e-mail>" of an order for the correction flow
//   REVIEWD_WEBTEST_MAIL   a mailbox: GET gives the e-mails reviewd sent so far
//   REVIEWD_WEBTEST_PROOF  PUT sets the domain-proof file https://shop.example serves
//   REVIEWD_WEBTEST_OUT    folder for screenshots
//   REVIEWD_CHROMIUM       Debian's Chromium (never a downloaded browser)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

export const env = {
  base: must("REVIEWD_WEBTEST_BASE"),
  chromium: must("REVIEWD_CHROMIUM"),
  bin: process.env.REVIEWD_WEBTEST_BIN || "",
  cwd: process.env.REVIEWD_WEBTEST_CWD || "",
  invite: process.env.REVIEWD_WEBTEST_INVITE || "",
  order: process.env.REVIEWD_WEBTEST_ORDER || "",
  email: process.env.REVIEWD_WEBTEST_EMAIL || "",
  out: process.env.REVIEWD_WEBTEST_OUT || "",
  revise: (process.env.REVIEWD_WEBTEST_REVISE || " ").split(" "),
  mail: process.env.REVIEWD_WEBTEST_MAIL || "",
  proof: process.env.REVIEWD_WEBTEST_PROOF || "",
};
export const demo = JSON.parse(readFileSync(must("REVIEWD_WEBTEST_DEMO"), "utf8"));
export const en = demo.channels.find((c) => c.code === "demo-en");

function must(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the browser tests through go test ./app/cli/ -run TestBrowser`);
  return v;
}

// Chromium as the brief asks: headless, no sandbox (tests may run as root), no
// network of its own; playwright gives each launch a fresh user-data-dir.
export const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// A desktop Chrome user agent: reviewd does not count views from "HeadlessChrome".
export const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export function launch() {
  return chromium.launch({ executablePath: env.chromium, headless: true, args: ARGS });
}

// Watchers installed before any page script: CSP violations, the page script's
// events, layout shifts and the first server-rendered review element.
function watchers() {
  window.__rv = { csp: [], events: [], cls: 0, shifts: [] };
  document.addEventListener("securitypolicyviolation", (e) => window.__rv.csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  for (const t of ["ready", "loaded", "rendered", "view", "vote", "report", "question", "questions", "submitted", "form-open", "answer", "error", "badges"]) {
    document.addEventListener("reviews:" + t, (e) => window.__rv.events.push({ type: t, detail: JSON.parse(JSON.stringify(
      t === "loaded" || t === "questions" ? { product: e.detail.product } : t === "badges" ? {} : e.detail)) }));
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (!e.hadRecentInput) {
        window.__rv.cls += e.value;
        window.__rv.shifts.push(e.sources.map((s) => s.node && (s.node.className || s.node.nodeName)).join(","));
      }
    }
  }).observe({ type: "layout-shift", buffered: true });
  new MutationObserver(() => {
    if (!window.__rv.first) window.__rv.first = document.querySelector("[data-review-list] > li");
  }).observe(document, { childList: true, subtree: true });
}

// newPage opens a page in a fresh context (no shared storage) with the watchers.
export async function newPage(browser, opts = {}) {
  const ctx = await browser.newContext({ userAgent: UA, viewport: { width: 1280, height: 900 }, ...opts });
  const page = await ctx.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error" && !/favicon/.test(m.text())) page.errors.push(m.text()); });
  await page.addInitScript(watchers);
  return page;
}

// events of the page script seen so far, optionally of one type.
export async function events(page, type) {
  const all = await page.evaluate(() => window.__rv.events);
  return type ? all.filter((e) => e.type === type) : all;
}

// waitEvent waits until the page script has sent its n-th reviews:<type> event.
export async function waitEvent(page, type, n = 1) {
  try {
    await page.waitForFunction(([t, k]) => window.__rv.events.filter((e) => e.type === t).length >= k, [type, n], { timeout: WAIT });
  } catch (e) {
    const seen = await page.evaluate(() => window.__rv.events.map((x) => x.type)).catch(() => "(page gone)");
    throw new Error(`waited ${WAIT} ms for reviews:${type} event #${n}; events seen: ${JSON.stringify(seen)}\n${e.message}`);
  }
}

// WAIT is how long a test waits for a state it expects (a loaded test machine can
// be slow; a passing test never waits that long).
export const WAIT = 15000;

// until waits for a state: it calls fn (sync or async) until fn neither throws nor
// returns false, and returns fn's value. After timeout ms it fails with fn's last
// error (an assertion's expected and actual values) or, for a predicate that
// stayed false, with the predicate's source. Every check that follows an action
// goes through until (or a waiting playwright locator), never a single read.
export async function until(fn, timeout = WAIT) {
  const end = Date.now() + timeout;
  for (;;) {
    let err;
    try {
      const v = await fn();
      if (v !== false) return v;
      err = new Error(`still false after ${timeout} ms: ${fn.toString()}`);
    } catch (e) {
      err = e;
    }
    if (Date.now() >= end) {
      if (err instanceof Error) err.message = `after waiting ${timeout} ms: ${err.message}`;
      throw err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// clean fails on CSP violations and page errors.
export async function clean(page, assert) {
  const csp = await page.evaluate(() => window.__rv.csp);
  assert.deepEqual(csp, [], "CSP violations");
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e) || /reviews|widget|assets/.test(e)), [], "page errors");
}

// api calls reviewd from node; Origin is the demo's verified domain.
export async function api(method, path, { body, headers = {} } = {}) {
  const res = await fetch(env.base + path, {
    method, headers: { Origin: env.base, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, json, text };
}

export const admin = (method, path, body) => api(method, path, { body, headers: { Authorization: "Api-Key " + demo.api_key } });

// views is today's component view count of a demo product page.
export async function views(channel, code) {
  const idx = (await api("GET", "/demo/index.json")).json;
  return idx.products.find((p) => p.channel === channel && p.code === code).views;
}

// waitViews waits until reviewd counts want views of a demo product today.
export async function waitViews(channel, code, want) {
  await until(async () => assert.equal(await views(channel, code), want, `views of ${channel}/${code}`));
}

// mailTo waits for an e-mail to an address whose text matches re; returns the match.
export async function mailTo(address, re) {
  let seen = [];
  try {
    return await until(async () => {
      seen = (await (await fetch(env.mail)).json()) || [];
      for (const m of seen) {
        const hit = m.to.includes(address) && re.exec(m.text);
        if (hit) return hit;
      }
      return false;
    });
  } catch {
    throw new Error(`no e-mail to ${address} matching ${re} within ${WAIT} ms; mails sent: ` +
      JSON.stringify(seen.map((m) => ({ to: m.to, subject: m.subject }))));
  }
}

export async function reviewd(...args) {
  const run = promisify(execFile);
  return run(env.bin, [...args, "--data", join(env.cwd, "demo-data")], { cwd: env.cwd, env: process.env });
}

// axe runs axe-core in the page (evaluated through the DevTools protocol, so the
// page's CSP needs no exception) and returns serious and critical findings.
const axeSource = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
export async function axe(page, include) {
  await page.evaluate(axeSource);
  const res = await page.evaluate(async (sel) => {
    const r = await window.axe.run(sel ? { include: [sel] } : document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  }, include || null);
  return res.filter((v) => v.impact === "serious" || v.impact === "critical");
}

export function budget(name, value, limit, unit) {
  console.log(`BUDGET ${name}: ${value}${unit} (limit ${limit}${unit})`);
}

export function gz(buf) { return gzipSync(buf, { level: 9 }).length; }

export async function shot(page, name, locator) {
  const buf = await (locator || page).screenshot({ fullPage: !locator });
  if (env.out) {
    mkdirSync(env.out, { recursive: true });
    writeFileSync(join(env.out, name + ".png"), buf);
  }
  return buf;
}

// luminance decodes a PNG in the browser and returns the mean luminance (0-255)
// and the share of pixels near a colour: a sanity comparison of screenshots.
export async function pixels(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let sum = 0;
    for (let i = 0; i < d.length; i += 4) sum += 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
    return { width: c.width, height: c.height, luminance: sum / (d.length / 4) };
  }, png.toString("base64"));
}

// png builds an RGB PNG of w x h (a gradient) for the upload test.
export async function png(w, h) {
  const { deflateSync, crc32 } = await import("node:zlib");
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const o = y * (w * 3 + 1);
    for (let x = 0; x < w; x++) {
      raw[o + 1 + x * 3] = (x * 255 / w) | 0;
      raw[o + 2 + x * 3] = (y * 255 / h) | 0;
      raw[o + 3 + x * 3] = 160;
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
