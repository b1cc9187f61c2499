// The machine-made summary on a product page: once the brand turns it on and
// the job ai has run, the page shows the text, the label that it is machine-made,
// the topics with their sentiment, and links from each sentence to the reviews it
// quotes; screenshots at 1280 and 390 px; axe-core.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { admin, axe, clean, env, launch, newPage, reviewd, shot, waitEvent } from "./lib.mjs";

const PAGE = "/demo/demo-en/demo-mug-blue";
let browser;

before(async () => {
  browser = await launch();
  const r = await admin("POST", "/admin/v1/settings", { ai_summary_enabled: true });
  assert.equal(r.status, 200, r.text);
  // The demo product has fewer reviews than the default ai.min_reviews.
  process.env.REVIEWD_AI_MIN_REVIEWS = "2";
  await reviewd("jobs", "run", "ai");
});
after(async () => {
  await admin("POST", "/admin/v1/settings", { ai_summary_enabled: false });
  await browser?.close();
});

for (const [width, height] of [[1280, 900], [390, 844]]) {
  test(`summary with label and citations at ${width} px`, async () => {
    const page = await newPage(browser, { viewport: { width, height } });
    await page.goto(env.base + PAGE);
    await waitEvent(page, "rendered");
    const sec = page.locator("[data-review-summary]");
    await sec.waitFor();
    const got = await sec.evaluate((s) => ({
      heading: s.querySelector("h3").textContent,
      label: s.querySelector("[data-review-summary-label]").textContent,
      sentences: s.querySelectorAll(".rvw-ai-sentence").length,
      cites: [...s.querySelectorAll("a[data-review-cite]")].map((a) => [a.getAttribute("href"), a.dataset.reviewCite]),
      topics: [...s.querySelectorAll("[data-review-sentiment]")].map((li) => li.dataset.reviewSentiment),
      overflow: s.scrollWidth > s.clientWidth + 1,
    }));
    assert.equal(got.heading, "Summary of reviews");
    assert.match(got.label, /generated automatically/);
    assert.ok(got.sentences > 0, "sentences shown");
    assert.ok(got.cites.length >= got.sentences, "every sentence cites a review");
    for (const [href, id] of got.cites) assert.equal(href, `#${id}-h`);
    assert.ok(got.topics.length > 0 && got.topics.every((s) => ["positive", "negative", "mixed"].includes(s)));
    assert.equal(got.overflow, false, "no horizontal overflow");
    // A citation of a review on the page leads to its heading.
    const first = await page.locator("[data-review-list] > [data-review-id]").first().getAttribute("data-review-id");
    const onPage = got.cites.find(([, id]) => id === first);
    if (onPage) {
      await page.locator(`a[data-review-cite="${first}"]`).first().click();
      assert.equal(await page.evaluate(() => location.hash), `#${first}-h`);
    }
    // The JSON-LD never carries the summary.
    const ld = await page.evaluate(() => [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => s.textContent).join(""));
    assert.doesNotMatch(ld, /generated automatically/);
    assert.deepEqual(await axe(page, "[data-review-summary]"), []);
    await shot(page, `ai-summary-${width}`, sec);
    await shot(page, `ai-page-${width}`);
    await clean(page, assert);
  });
}
