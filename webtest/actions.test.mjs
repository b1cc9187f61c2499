// Visitor actions: a helpful vote (visitor key in localStorage, no cookies), a
// report, a question, and view counting: one beacon per shown component, headless
// too, none from a prerendered page that is never shown, one once it is.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { admin, axe, clean, env, launch, newPage, until, views, waitEvent, waitViews } from "./lib.mjs";
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
  await until(async () => assert.equal(await count(), before + 1, "helpful count after the vote"));
  await until(async () => assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "true", "pressed after the vote"));
  const key = await page.evaluate(() => JSON.parse(localStorage.getItem("reviewd:visitor")));
  assert.match(key, /^[0-9a-f]{32}$/);
  assert.equal(res.request().postDataJSON().visitor_key, key);
  assert.deepEqual(await page.context().cookies(), [], "no cookies");
  assert.equal(res.request().headers().cookie, undefined);

  await page.reload();
  await waitEvent(page, "rendered");
  await until(async () => assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "true", "remembered"));
  await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/helpful`)), item.locator("[data-review-vote=up]").click()]);
  await waitEvent(page, "vote");
  await until(async () => assert.equal(await count(), before, "a second click withdraws the vote"));
  await until(async () => assert.equal(await item.locator("[data-review-vote=up]").getAttribute("aria-pressed"), "false", "not pressed after withdrawing"));
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
  await until(async () => assert.equal(await page.evaluate(() => document.activeElement.closest("dialog") !== null), true, "focus in the dialog"));
  assert.deepEqual(await axe(page, "dialog"), [], "axe: report dialog");
  await dlg.locator("input[name=reason][value=fake]").check();
  await dlg.locator("textarea[name=note]").fill("Looks copied from another site.");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/v1/reviews/${id}/report`)),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  assert.deepEqual(res.request().postDataJSON().reason, "fake");
  await until(async () => assert.match(await dlg.locator(".rvw-done").textContent(), /report/i));
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
  await page.locator(".rvw-questions .rvw-question").first().waitFor(); // published questions shown
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
  await until(() => beacons.length >= 1);
  // Then nothing more: the questions and any late work of the page send no second view.
  await waitEvent(page, "questions");
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
  await waitViews("demo-en", "demo-mug-speckled", before + 1); // counted by reviewd

  // Headless: the store's own markup from the script's events, counted as headless.
  const hb = await views("demo-en", "demo-tshirt");
  beacons.length = 0;
  await page.goto(env.base + "/demo/demo-en/demo-tshirt?render=headless");
  await waitEvent(page, "view");
  await page.waitForSelector("[data-demo-list] li");
  await until(() => beacons.length >= 1);
  assert.equal(JSON.parse(beacons[0].postData()).shown, "headless");
  assert.equal(JSON.parse(beacons[0].postData()).scope, "group");
  await waitViews("demo-en", "demo-tshirt", hb + 1);
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

  const prerendered = (m) => m.method === "Target.attachedToTarget" && m.params.targetInfo.subtype === "prerender";
  // hydrated waits until the script in the prerendered page holds its reviews: it
  // has then done all it does on load (a view would have been sent by now).
  const hydrated = (b, session) => until(() =>
    b.evaluate("!!(window.Reviewd && window.Reviewd.get() && document.prerendering)", session).then((v) => v === true));
  // noViewFor checks that the count stays at base for a while (a beacon sent by
  // mistake reaches reviewd within milliseconds on loopback).
  const noViewFor = async (ms, what) => {
    for (const end = Date.now() + ms; Date.now() < end;) {
      assert.equal(await views("demo-en", "demo-candle"), base, what);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  // Prerendered, never shown: no view, not even when the browser goes away.
  let b = await rawBrowser();
  try {
    await b.send("Page.navigate", { url: landing }, b.session);
    const st = await Promise.race([b.waitFor(prerenderReady), b.waitFor(failed)]);
    assert.equal(st.params.status, "Ready", "prerender failed: " + st.params.prerenderStatus);
    await hydrated(b, (await b.waitFor(prerendered)).params.sessionId);
    await noViewFor(500, "no view from a prerender");
  } finally { await b.close(); }
  await noViewFor(500, "no view after the prerender was dropped");

  // Prerendered, then shown: exactly one view.
  b = await rawBrowser();
  try {
    await b.send("Page.navigate", { url: landing }, b.session);
    const ready = await b.waitFor(prerenderReady);
    assert.ok(ready);
    const attached = await b.waitFor(prerendered);
    await hydrated(b, attached.params.sessionId);
    await noViewFor(300, "no view before the page is shown");
    await b.evaluate(`location.href = ${JSON.stringify(target)}`);
    await waitViews("demo-en", "demo-candle", base + 1); // one view once shown
    const shown = await b.evaluate("JSON.stringify([performance.getEntriesByType('navigation')[0].activationStart > 0, " +
      "document.querySelectorAll('[data-review-list] > [data-review-id]').length])", attached.params.sessionId);
    assert.deepEqual(JSON.parse(shown)[0], true, "the shown page was the prerendered one");
  } finally { await b.close(); }
});
