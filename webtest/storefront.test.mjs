// The channel's reviews across products: the home page carousel (data-review-carousel)
// and the store-wide review page (data-review-all) of the demo's English channel,
// server-rendered first (GET /v1/ssr/carousel, /v1/ssr/all) and drawn by the page
// script (render=client), at 1280 and 390 px. Two reviews are pinned through the
// admin API for the test (and unpinned after it): they lead the carousel and their
// product's list, labelled "Selected by the brand". Axe clean, no CSP violations.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { admin, api, axe, clean, en, launch, newPage, shot, until } from "./lib.mjs";

const base = process.env.REVIEWD_WEBTEST_BASE;
let browser;
const pinned = [];

before(async () => {
  browser = await launch();
  const all = await api("GET", `/v1/reviews/all?key=${encodeURIComponent(en.site_key)}&lang=en&page_size=50`);
  assert.equal(all.status, 200, all.text);
  // The two newest reviews with a title, so the cards are named by it.
  for (const r of all.json.reviews.filter((r) => r.title).slice(0, 2)) {
    const res = await admin("PUT", `/admin/v1/reviews/${r.id}/featured`);
    assert.equal(res.status, 200, res.text);
    pinned.push(r);
  }
  assert.equal(pinned.length, 2, "two titled reviews to pin");
});

after(async () => {
  for (const r of pinned) await admin("DELETE", `/admin/v1/reviews/${r.id}/featured`);
  await browser?.close();
});

test("home page carousel: the pinned reviews, labelled; step buttons and keys; reduced motion; no layout shift; axe clean", async () => {
  for (const width of [1280, 390]) {
    for (const render of ["ssr", "client"]) {
      const page = await newPage(browser, { viewport: { width, height: 900 }, reducedMotion: width === 390 ? "reduce" : "no-preference" });
      await page.goto(`${base}/demo/${en.code}/${render === "client" ? "?render=client" : ""}`);
      const car = page.locator("[data-review-carousel] .rvw-carousel");
      await car.waitFor();
      assert.equal(await car.getAttribute("data-review-source"), "featured");
      const cards = car.locator(".rvw-card");
      assert.deepEqual(await cards.evaluateAll((els) => els.map((el) => el.dataset.reviewId)).then((ids) => ids.sort()),
        pinned.map((r) => r.id).sort(), "the pinned reviews only");
      for (let i = 0; i < 2; i++) {
        const label = cards.nth(i).locator("[data-review-featured]");
        assert.ok(await label.isVisible(), "featured label visible");
        assert.equal((await label.textContent()).trim(), "Selected by the brand");
      }
      assert.ok(await cards.first().locator(".rvw-product a").count() + await cards.first().locator(".rvw-product").count() >= 1, "product named");
      const prev = car.locator('[data-review-carousel-step="-1"]'), next = car.locator('[data-review-carousel-step="1"]');
      assert.equal(await prev.getAttribute("aria-label"), "Previous reviews");
      assert.equal(await next.getAttribute("aria-label"), "Next reviews");
      const track = car.locator("[data-review-carousel-track]");
      const behavior = await track.evaluate((el) => getComputedStyle(el).scrollBehavior);
      assert.equal(behavior, width === 390 ? "auto" : "smooth", "smooth scrolling only without reduced motion");
      if (width === 390) {
        // Two cards of 85% width: the next button and the arrow keys move on.
        const start = await track.evaluate((el) => el.scrollLeft);
        await next.click();
        await until(async () => (await track.evaluate((el) => el.scrollLeft)) > start + 100);
        await prev.click();
        await until(async () => (await track.evaluate((el) => el.scrollLeft)) === start);
        await track.focus();
        await page.keyboard.press("ArrowRight");
        await until(async () => (await track.evaluate((el) => el.scrollLeft)) > start);
      }
      if (render === "ssr") {
        // The page script binds the server's markup without redrawing it.
        const shifts = await page.evaluate(() => window.__rv.shifts);
        assert.ok(!shifts.some((s) => /rvw-card|rvw-carousel/.test(s)), `carousel moved: ${shifts}`);
        await shot(page, `storefront-carousel-${width}`);
      }
      assert.deepEqual(await axe(page), [], `axe: home page ${render} at ${width}`);
      await clean(page, assert);
      await page.context().close();
    }
  }
});

test("featured reviews lead their product's list, labelled, in the default sort", async () => {
  const first = pinned[0];
  const list = await api("GET", `/v1/reviews/list?key=${encodeURIComponent(en.site_key)}&product=${encodeURIComponent(first.product.key)}&lang=en`);
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.reviews[0].featured, true);
  assert.equal(list.json.reviews[0].featured_label, "Selected by the brand");
  const product = (await api("GET", "/demo/index.json")).json.products.find((p) => p.channel === en.code && p.code === first.product.key);
  if (!product) return; // a review of a product the demo does not show as a page
  for (const render of ["ssr", "client"]) {
    const page = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/demo/${en.code}/${product.code}?render=${render}`);
    const row = page.locator("[data-review-list] > li").first();
    await row.locator("[data-review-featured]").waitFor();
    assert.equal((await row.locator("[data-review-featured]").textContent()).trim(), "Selected by the brand");
    assert.ok(await row.locator("[data-review-featured]").isVisible());
    assert.deepEqual(await axe(page, "[data-review-list]"), [], `axe: featured row ${render}`);
    await clean(page, assert);
    await page.context().close();
  }
});

test("store review page: newest first across products with product links, filters and paging, axe clean", async () => {
  for (const width of [1280, 390]) {
    for (const render of ["ssr", "client"]) {
      const page = await newPage(browser, { viewport: { width, height: 900 } });
      await page.goto(`${base}/demo/${en.code}/reviews${render === "client" ? "?render=client" : ""}`);
      const sec = page.locator("[data-review-all] .rvw-all");
      await sec.waitFor();
      const cards = sec.locator(".rvw-card");
      assert.ok(await cards.count() > 0);
      const dates = await cards.evaluateAll((els) => els.map((el) => el.querySelector("time").getAttribute("datetime")));
      assert.deepEqual(dates, [...dates].sort().reverse(), "newest first");
      assert.ok(await sec.locator(".rvw-product a[href]").count() > 0, "product links");
      for (const r of pinned) {
        const card = sec.locator(`.rvw-card[data-review-id="${r.id}"]`);
        if (await card.count()) assert.ok(await card.locator("[data-review-featured]").isVisible(), "featured label on the store page");
      }
      assert.deepEqual(await axe(page), [], `axe: store page ${render} at ${width}`);
      if (render === "ssr") await shot(page, `storefront-all-${width}`);
      // Verified purchases only.
      const verified = sec.locator('[data-review-all-filter="verified"]');
      await verified.click();
      await until(async () => (await page.locator('[data-review-all] [data-review-all-filter="verified"]').getAttribute("aria-pressed")) === "true");
      const flags = await page.locator("[data-review-all] .rvw-card").evaluateAll((els) => els.map((el) => !!el.querySelector('[data-review-badge="verified"]')));
      assert.ok(flags.every(Boolean), "verified only");
      assert.ok(await page.evaluate(() => document.activeElement?.dataset.reviewAllFilter === "verified"), "focus stays on the filter");
      // Five stars only.
      await page.locator("[data-review-all] [data-review-all-rating]").selectOption("5");
      await until(async () => (await page.locator("[data-review-all] .rvw-all").getAttribute("data-review-rating")) === "5");
      const stars = await page.locator("[data-review-all] .rvw-card .rvw-stars").evaluateAll((els) => els.map((el) => el.dataset.stars));
      assert.ok(stars.every((s) => s === "5"), `five stars only: ${stars}`);
      if (width === 390) await shot(page, `storefront-all-filtered-${render}-${width}`);
      assert.deepEqual(await axe(page), [], `axe: filtered store page ${render} at ${width}`);
      await clean(page, assert);
      await page.context().close();
    }
  }
  // Paging, as the script asks for it (2 per page).
  const p1 = await api("GET", `/v1/ssr/all?key=${encodeURIComponent(en.site_key)}&lang=en&page_size=2`);
  assert.equal(p1.status, 200, p1.text);
  if (p1.json.pages > 1) {
    const p2 = await api("GET", `/v1/reviews/all?key=${encodeURIComponent(en.site_key)}&lang=en&page_size=2&page=2`);
    assert.equal(p2.json.page, 2);
    assert.notDeepEqual(p2.json.reviews.map((r) => r.id), p1.json.reviews.map((r) => r.id));
    assert.match(p1.json.html, /data-review-all-page="2"/);
  }
  assert.doesNotMatch(p1.text, /ld\+json|aggregateRating/, "no structured data");
});
