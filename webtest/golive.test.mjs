// Going live: the go-live checklist at desktop and phone width (each step's
// state from the server), and an owner alert on the overview: a page on a domain
// that is not verified ("Your reviews are not shown on shop.example") appears
// after the component is refused there and clears once the domain is verified
// with the proof file. axe-core finds nothing serious on either page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, axe, demo, en, env, launch, shot, until } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function panelPage(width) {
  const ctx = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 800 }, locale: "en-GB" });
  const page = await ctx.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error" && !/Failed to load resource/.test(m.text())) page.errors.push(m.text()); });
  return page;
}

// signIn signs in from the sign-in form and returns the page it landed on.
async function signIn(page) {
  await page.goto(env.base + "/panel/sign-in");
  await page.fill("#username", demo.username);
  await page.fill("#password", demo.password);
  await Promise.all([page.waitForURL((u) => !u.pathname.endsWith("/sign-in")), page.click("main button[type=submit]")]);
  return new URL(page.url()).pathname;
}

const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("go-live checklist: the first page after sign-in until every step is done, its steps from the server, at 1280 and 390 px", async () => {
  for (const width of [1280, 390]) {
    const page = await panelPage(width);
    const landed = await signIn(page);
    const res = await page.goto(env.base + "/panel/go-live");
    assert.equal(res.status(), 200);
    const steps = await page.locator("[data-step]").evaluateAll((els) => els.map((e) => [e.dataset.step, e.dataset.done]));
    assert.deepEqual(steps.map((s) => s[0]), ["domain", "keys", "embed", "sending", "order", "review"]);
    const done = (await page.locator("[data-golive-done]").count()) === 1;
    assert.equal(done, steps.every((s) => s[1] === "true"), "the page says done exactly when every step is");
    assert.equal(landed, done ? "/panel/" : "/panel/go-live", "sign-in lands on the checklist until every step is done");
    // The demo's brand is live: a verified domain, both keys, the site key used by
    // its pages, an invitation delivered, orders and reviews.
    assert.ok(done, `the demo's steps: ${JSON.stringify(steps)}`);
    // The snippets of a product page and a listing page carry the channel's site key.
    const snippets = await page.locator("pre.snippet").allTextContents();
    assert.ok(snippets.some((s) => s.includes(`data-key="${en.site_key}"`) && s.includes("data-review-product=")), "product snippet");
    assert.ok(snippets.some((s) => s.includes('data-review-badge="stars"')), "listing snippet");
    // Reachable from the navigation (the settings menu) and the overview.
    assert.equal(await page.locator('nav.sub a[href="/panel/go-live"][aria-current="page"]').count(), 1);
    assert.deepEqual(await axe(page), [], `axe: go-live at ${width} px`);
    assert.ok(await sideways(page) <= 0, `go-live at ${width} px scrolls sideways`);
    await shot(page, `golive-checklist-${width}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// refused asks for a product's reviews as a page on https://shop.example would.
const refused = () => api("GET", "/v1/reviews/list?product=demo-mug-blue", {
  headers: { Origin: "https://shop.example", "X-Service-Site-Key": en.site_key },
});

test("owner alert: a page on an unverified domain is named on the overview with the count, and the alert clears once the domain is verified", async () => {
  assert.ok(env.proof, "REVIEWD_WEBTEST_PROOF is set by TestBrowser");
  const r = await refused();
  assert.equal(r.status, 403);
  assert.equal(r.json.detail, "origin_unverified: shop.example");
  for (const width of [1280, 390]) {
    const page = await panelPage(width);
    await signIn(page);
    await until(async () => {
      await page.goto(env.base + "/panel/");
      return (await page.locator('[data-alert="origin_unverified"]').count()) === 1;
    });
    const alert = page.locator('[data-alert="origin_unverified"]');
    assert.match(await alert.textContent(), /Your reviews are not shown on shop\.example: verify the domain\./);
    assert.match(await alert.textContent(), /Requests from pages on shop\.example refused so far: 1\./);
    assert.deepEqual(await axe(page), [], `axe: overview with alerts at ${width} px`);
    assert.ok(await sideways(page) <= 0, `overview at ${width} px scrolls sideways`);
    await shot(page, `golive-alert-${width}`, page.locator("[data-alerts]"));
    await page.context().close();
  }

  // The owner follows the alert: adds the domain, puts the proof file there,
  // checks it. The alert is gone.
  const page = await panelPage(1280);
  await signIn(page);
  await page.goto(env.base + "/panel/");
  await Promise.all([page.waitForURL(/\/panel\/channels/), page.locator('[data-alert="origin_unverified"] a[href="/panel/channels"]').click()]);
  await page.fill(`#d-${en.code}`, "shop.example");
  await Promise.all([page.waitForURL(/\/domains$/), page.locator(`#d-${en.code} + button`).click()]);
  const token = (await page.locator('[data-proof="shop.example"] .secret code').first().textContent()).trim();
  assert.match(token, /^reviewd-verification=/);
  const put = await fetch(env.proof, { method: "PUT", body: token + "\n" });
  assert.equal(put.status, 204);
  await Promise.all([page.waitForURL(/notice=domain_verified/), page.locator('[data-proof="shop.example"] input[value="file"] + button').click()]);
  await page.goto(env.base + "/panel/");
  assert.equal(await page.locator('[data-alert="origin_unverified"]').count(), 0, "the alert clears with the verified domain");
  assert.equal((await refused()).status, 200, "the page on shop.example is served now");
  assert.deepEqual(await axe(page), []);
  await shot(page, "golive-alert-cleared-1280");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
