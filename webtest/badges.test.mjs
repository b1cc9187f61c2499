// Star badges of a listing page: the demo channel page (data-review-badge="stars"
// on each product) is drawn by the page script from one GET /v1/reviews/badges,
// each badge equal to its product's list aggregate; axe-clean at 1280 and 390 px.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, axe, clean, en, launch, newPage, shot, waitEvent } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("listing page: one badge request per scope, each badge the list aggregate, axe clean", async () => {
  for (const width of [1280, 390]) {
    const page = await newPage(browser, { viewport: { width, height: 900 } });
    const asked = [];
    page.on("request", (r) => { if (r.url().includes("/v1/reviews/")) asked.push(r.url()); });
    await page.goto(`${process.env.REVIEWD_WEBTEST_BASE}/demo/${en.code}/`);
    await page.waitForSelector('[data-review-badge="stars"]', { state: "attached" });
    const scopes = await page.$$eval('[data-review-badge="stars"]', (els) => new Set(els.map((el) => el.dataset.reviewScope || "variant")).size);
    await waitEvent(page, "badges", scopes);
    const drawn = await page.$$eval('[data-review-badge="stars"]', (els) => els.map((el) => ({
      product: el.dataset.reviewProduct, scope: el.dataset.reviewScope || "variant",
      label: el.querySelector(".rvw-stars")?.getAttribute("aria-label") || "",
      stars: el.querySelector(".rvw-stars")?.dataset.stars || "",
      text: el.textContent.trim(),
      star: el.querySelector(".rvw-stars-fill") && getComputedStyle(el.querySelector(".rvw-stars-fill")).backgroundColor,
    })));
    assert.equal(asked.filter((u) => u.includes("/v1/reviews/badges")).length, scopes, "one badge request per scope");
    assert.equal(asked.filter((u) => u.includes("/v1/reviews/list")).length, 0, "no list request on a listing page");
    assert.ok(drawn.length >= 2);
    for (const b of drawn) {
      const list = await api("GET", `/v1/reviews/list?key=${encodeURIComponent(en.site_key)}&product=${encodeURIComponent(b.product)}&scope=${b.scope}&lang=en`);
      const a = list.json.aggregate;
      if (!a.count) { assert.equal(b.text, "", b.product); continue; }
      assert.equal(b.stars, String(a.stars_filled), b.product);
      assert.equal(b.text, `${a.average.toFixed(1)} (${a.count})`, b.product);
      assert.match(b.label, new RegExp(`^${a.average.toFixed(1)} out of 5 stars, ${a.count} reviews?$`));
      assert.notEqual(b.star, "rgba(0, 0, 0, 0)", "the star colour of the theme");
    }
    await shot(page, `badges-listing-${width}`);
    assert.deepEqual(await axe(page), [], `axe: listing page at ${width}`);
    await clean(page, assert);
    await page.context().close();
  }
});
