// Visitor actions: a helpful vote (visitor key in localStorage, no cookies), a
// report, a question, and view counting: one beacon per shown component, headless
// too, none from a prerendered page that is never shown, one once it is.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { admin, axe, clean, env, events, launch, newPage, views, waitEvent, waitViews } from "./lib.mjs";
import { rawBrowser } from "./cdp.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("helpful vote: counted once per visitor, remembered, withdrawn", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled");
  await waitEvent(page, "rendered");
  const item = page.locator("[data-review-list] > [data-review-id]").first();
  const id = await item.getAttribute("data-review-id");
  const count = async () => +(await item.locator("[data-review-count=up]").textContent());
  const before = await count();
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/v1/reviews/${id}/helpful`)),
    item.locator("[data-review-vote=up]").click()]);
  assert.equal(res.status(), 200);
  assert.deepEqual(res.request().postDataJSON().vote, "up");
  await page.waitForFunction((i) => window.__rv.events.some((e) => e.type === "vote" && e.detail.review_id === i), id);
  assert.equal(await count(), before + 1);
  assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "true");
  const key = await page.evaluate(() => JSON.parse(localStorage.getItem("reviewd:visitor")));
  assert.match(key, /^[0-9a-f]{32}$/);
  assert.equal(res.request().postDataJSON().visitor_key, key);
  assert.deepEqual(await page.context().cookies(), [], "no cookies");
  assert.equal(res.request().headers().cookie, undefined);

  await page.reload();
  await waitEvent(page, "rendered");
  assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "true", "remembered");
  await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/helpful`)), item.locator("[data-review-vote=up]").click()]);
  await page.waitForFunction(() => window.__rv.events.some((e) => e.type === "vote"));
  assert.equal(await count(), before, "a second click withdraws the vote");
  assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "false");
  await clean(page, assert);
  await page.context().close();
});

test("report dialog: reason, note, thanks", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled");
  await waitEvent(page, "rendered");
  const item = page.locator("[data-review-list] > [data-review-id]").nth(1);
  const id = await item.getAttribute("data-review-id");
  await item.locator("[data-review-report]").click();
  const dlg = page.locator("dialog[open]");
  await dlg.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.closest("dialog") !== null), true, "focus in the dialog");
  assert.deepEqual(await axe(page, "dialog"), [], "axe: report dialog");
  await dlg.locator("input[name=reason][value=fake]").check();
  await dlg.locator("textarea[name=note]").fill("Looks copied from another site.");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/v1/reviews/${id}/report`)),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  assert.deepEqual(res.request().postDataJSON().reason, "fake");
  await dlg.locator(".rvw-done").waitFor();
  assert.match(await dlg.locator(".rvw-done").textContent(), /report/i);
  const reviewed = await admin("GET", `/admin/v1/reviews/${id}`);
  assert.equal(reviewed.status, 200);
  assert.ok(JSON.stringify(reviewed.json.reports || reviewed.json).includes("fake"), "report stored");
  await page.keyboard.press("Escape");
  await clean(page, assert);
  await page.context().close();
});

test("question: asked from the questions section", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled");
  await waitEvent(page, "questions");
  assert.ok(await page.locator(".rvw-questions .rvw-question").count() > 0, "published questions shown");
  await page.click("[data-review-ask]");
  const dlg = page.locator("dialog[open]");
  await dlg.locator("textarea[name=body]").fill("Does the glaze contain lead?");
  await dlg.locator("input[name=author]").fill("Webtest Asker");
  assert.deepEqual(await axe(page, "dialog"), [], "axe: question dialog");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/questions") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  const q = await res.json();
  await dlg.locator(".rvw-done").waitFor();
  const stored = await admin("GET", `/admin/v1/questions/${q.id}`);
  assert.equal(stored.status, 200);
  assert.ok(JSON.stringify(stored.json).includes("Does the glaze contain lead?"));
  await clean(page, assert);
  await page.context().close();
});

test("view counting: one text/plain beacon per shown component, headless included", async () => {
  const page = await newPage(browser);
  const before = await views("demo-en", "demo-mug-speckled");
  const beacons = [];
  page.on("request", (r) => { if (r.url().includes("/v1/views")) beacons.push(r); });
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled?theme=trust&style=sidebar");
  await waitEvent(page, "view");
  await page.waitForTimeout(300);
  assert.equal(beacons.length, 1, "one view per component");
  const b = beacons[0];
  assert.equal(b.method(), "POST");
  assert.match(b.headers()["content-type"], /^text\/plain/);
  assert.ok(["ping", "beacon", "fetch"].includes(b.resourceType()), b.resourceType());
  const v = JSON.parse(b.postData());
  assert.deepEqual({ ...v, width: 0 }, { product: "demo-mug-speckled", scope: "variant", shown: "default", style: "sidebar",
    theme: "trust", width: 0 });
  assert.ok(v.width > 300);
  await waitViews("demo-en", "demo-mug-speckled", before + 1);
  assert.equal(await views("demo-en", "demo-mug-speckled"), before + 1, "counted by reviewd");

  // Headless: the store's own markup from the script's events, counted as headless.
  const hb = await views("demo-en", "demo-tshirt");
  beacons.length = 0;
  await page.goto(env.base + "/demo/demo-en/demo-tshirt?render=headless");
  await waitEvent(page, "view");
  await page.waitForSelector("[data-demo-list] li");
  assert.equal(JSON.parse(beacons[0].postData()).shown, "headless");
  assert.equal(JSON.parse(beacons[0].postData()).scope, "group");
  await waitViews("demo-en", "demo-tshirt", hb + 1);
  assert.equal(await views("demo-en", "demo-tshirt"), hb + 1);
  assert.deepEqual(await axe(page), [], "axe: headless page");
  await clean(page, assert);
  await page.context().close();
});

test("view counting in a prerendered page: none until it is shown", async () => {
  const target = "/demo/demo-en/demo-candle?theme=bold";
  const landing = env.base + "/demo/demo-en/?prerender=" + encodeURIComponent(target);
  const prerenderReady = (m) => m.method === "Preload.prerenderStatusUpdated" && m.params.status === "Ready";
  const failed = (m) => m.method === "Preload.prerenderStatusUpdated" && m.params.status === "Failure";
  const base = await views("demo-en", "demo-candle");

  // Prerendered, never shown: no view, not even when the browser goes away.
  let b = await rawBrowser();
  try {
    await b.send("Page.navigate", { url: landing }, b.session);
    const st = await Promise.race([b.waitFor(prerenderReady), b.waitFor(failed)]);
    assert.equal(st.params.status, "Ready", "prerender failed: " + st.params.prerenderStatus);
    // The prerendered page loaded the script and its reviews meanwhile.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await views("demo-en", "demo-candle"), base, "no view from a prerender");
  } finally { b.close(); }
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await views("demo-en", "demo-candle"), base, "no view after the prerender was dropped");

  // Prerendered, then shown: exactly one view.
  b = await rawBrowser();
  try {
    await b.send("Page.navigate", { url: landing }, b.session);
    const ready = await b.waitFor(prerenderReady);
    assert.ok(ready);
    const attached = await b.waitFor((m) => m.method === "Target.attachedToTarget" && m.params.targetInfo.subtype === "prerender");
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await views("demo-en", "demo-candle"), base);
    await b.evaluate(`location.href = ${JSON.stringify(target)}`);
    await waitViews("demo-en", "demo-candle", base + 1);
    assert.equal(await views("demo-en", "demo-candle"), base + 1, "one view once shown");
    const shown = await b.evaluate("JSON.stringify([performance.getEntriesByType('navigation')[0].activationStart > 0, " +
      "document.querySelectorAll('[data-review-list] > [data-review-id]').length])", attached.params.sessionId);
    assert.deepEqual(JSON.parse(shown)[0], true, "the shown page was the prerendered one");
  } finally { b.close(); }
});
