// The product page's finish: all eight themes at 1280 and 390 px (screenshots,
// axe-core, no layout shift when the script takes over the server's HTML), the
// phone layout (a few reviews at a time), the photo viewer with its review, the
// file picker and the thank-you step with the order's other products.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, axe, budget, clean, en, env, launch, newPage, png, shot, until, waitEvent } from "./lib.mjs";

const PAGE = "/demo/demo-en/demo-mug-blue";
const THEMES = ["warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"];
let browser;

before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// settled waits until the page script has taken over and two frames have been drawn.
async function settled(page) {
  await waitEvent(page, "rendered");
  await waitEvent(page, "view");
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}

// shown counts the reviews of the list a visitor sees.
const shown = (page) => page.evaluate(() => [...document.querySelectorAll("[data-review-list] > li")].filter((l) => l.offsetHeight > 0).length);

test("eight themes at 1280 and 390 px: screenshots, axe clean, no layout shift over the server's HTML", async () => {
  let worst = 0, tallest = 0;
  for (const width of [1280, 390]) {
    const page = await newPage(browser, { viewport: { width, height: width > 480 ? 900 : 844 } });
    for (const theme of THEMES) {
      await page.goto(`${env.base}${PAGE}?theme=${theme}`);
      await settled(page);
      const r = await page.evaluate(() => {
        const el = document.querySelector("[data-review-version]"), first = el.querySelector("[data-review-list] > li");
        const g = el.querySelector(".rvw-gallery ul"), item = g && g.querySelector("li");
        return { cls: window.__rv.cls, shifts: window.__rv.shifts, theme: el.dataset.reviewTheme, cls2: el.className,
          before: first.getBoundingClientRect().top - el.getBoundingClientRect().top,
          gallery: g ? [g.offsetHeight, item.offsetHeight] : null,
          write: el.querySelector("[data-review-write]").getBoundingClientRect().bottom,
          galleryTop: g ? el.querySelector(".rvw-gallery h3").getBoundingClientRect().top : Infinity,
          scroll: [document.documentElement.scrollWidth, document.documentElement.clientWidth] };
      });
      assert.equal(r.theme, theme);
      assert.match(r.cls2, new RegExp(`rvw-theme-${theme}\\b`));
      worst = Math.max(worst, r.cls);
      assert.equal(r.cls, 0, `${theme} ${width} px: shifts ${r.shifts.join(" | ")}`);
      assert.ok(r.scroll[0] <= r.scroll[1], `${theme} ${width} px: no horizontal scrolling`);
      assert.ok(r.galleryTop - r.write >= 12, `${theme} ${width} px: "Write a review" keeps off the gallery heading (${r.galleryTop - r.write} px)`);
      if (width === 390) {
        tallest = Math.max(tallest, Math.round(r.before));
        assert.ok(r.before <= 844, `${theme}: ${r.before} px before the first review, more than a screen`);
        if (r.gallery) assert.ok(r.gallery[0] <= r.gallery[1] + 24, `${theme}: the gallery in one row (${r.gallery})`);
        assert.equal(await shown(page), 3, `${theme}: three reviews at first`);
      }
      // Controls in the theme's colours: the keyboard focus ring and the write button.
      await page.focus("[data-review-filter=verified]");
      const ui = await page.evaluate(() => {
        const el = document.querySelector("[data-review-version]"), probe = document.createElement("i");
        probe.style.color = "var(--rvw-accent)";
        el.append(probe);
        const accent = getComputedStyle(probe).color;
        probe.remove();
        const f = getComputedStyle(document.activeElement), wb = getComputedStyle(el.querySelector("[data-review-write]"));
        return { accent, ring: f.outlineColor, ringStyle: f.outlineStyle, write: wb.backgroundColor };
      });
      assert.equal(ui.ringStyle, "solid", `${theme}: focus ring`);
      assert.equal(ui.ring, ui.accent, `${theme}: focus ring in the accent`);
      assert.equal(ui.write, ui.accent, `${theme}: write button in the accent`);
      await page.evaluate(() => document.activeElement.blur());
      await shot(page, `theme-${theme}-${width}`, page.locator("[data-review-version]"));
      assert.deepEqual(await axe(page, "[data-review-product]"), [], `axe: ${theme} ${width} px`);
    }
    await clean(page, assert);
    await page.context().close();
  }
  budget("layout shift over server-rendered HTML, 8 themes at 1280 and 390 px (CLS, worst)", worst, 0, "");
  budget("component top to the first review at 390 px (worst of 8 themes)", tallest, 844, " px");
});

test("phone: three reviews, then three more a step, then the next page", async () => {
  const page = await newPage(browser, { viewport: { width: 390, height: 844 } });
  await page.goto(env.base + PAGE);
  await settled(page);
  assert.equal(await shown(page), 3);
  const more = page.locator("[data-review-more]:visible");
  for (const want of [6, 9, 10]) {
    await more.click();
    await until(async () => assert.equal(await shown(page), want));
  }
  // The fourth review takes the focus after the first step, as paging does.
  const pages = [];
  page.on("request", (q) => { if (q.url().includes("/v1/reviews/list")) pages.push(new URL(q.url()).searchParams.get("page")); });
  await more.click();
  await until(async () => assert.ok((await shown(page)) > 10, "the next page's reviews are shown"));
  assert.deepEqual(pages, ["2"]);
  await until(async () => assert.equal(await page.evaluate(() => document.activeElement.closest("[data-review-list] > li") ===
    document.querySelectorAll("[data-review-list] > li")[10]), true, "focus on the first review of the next page"));
  // The topics keep to one line until "show more".
  const topics = page.locator(".rvw-topics");
  if (await topics.count()) {
    const h = () => topics.locator("ul").evaluate((u) => u.offsetHeight);
    assert.ok((await h()) <= 48, `topics on one line (${await h()} px)`);
    const tm = topics.locator("[data-review-topics-more]");
    if (await tm.count()) {
      await tm.click();
      await until(async () => assert.ok((await h()) > 48, "all topics after show more"));
    }
  }
  await shot(page, "phone-after-show-more", page.locator("[data-review-version]"));
  assert.deepEqual(await axe(page, "[data-review-product]"), [], "axe: phone after show more");
  await clean(page, assert);
  await page.context().close();
});

test("photo viewer: the photo's review, arrows, Escape, focus kept and given back, read the review", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + PAGE);
  await settled(page);
  const item = page.locator("[data-review-gallery-item]").first();
  assert.ok(await item.count(), "the demo product has a gallery");
  const rid = await item.getAttribute("data-review-id");
  await item.click();
  const dlg = page.locator("dialog[open]");
  const cap = dlg.locator("figcaption");
  await cap.locator(".rvw-stars[role=img]").waitFor();
  const review = await page.evaluate((id) => window.Reviewd.get().reviews.find((r) => r.id === id) || null, rid);
  const text = await cap.innerText();
  if (review) {
    if (review.title) assert.ok(text.includes(review.title), "title: " + text);
    assert.ok(text.includes(review.body.slice(0, 30)), "text: " + text);
    assert.ok(text.includes(review.anonymous ? "Anonymous" : review.author), "author: " + text);
  }
  assert.match(text, /\w+ \d{1,2}, \d{4}/, "date");
  assert.equal(await dlg.getAttribute("aria-labelledby"), await dlg.locator("h2").getAttribute("id"), "labelled by its heading");
  assert.deepEqual(await axe(page, "dialog"), [], "axe: photo viewer");
  await shot(page, "photo-viewer", dlg);
  // Tab never reaches the page behind the viewer (a native modal dialog: after its
  // last control focus may visit the browser's own controls, then comes back);
  // arrows move through the photos.
  let inside = 0;
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    const where = await page.evaluate(() => document.activeElement.closest("dialog[open]") ? "dialog" : document.activeElement.localName);
    assert.ok(where === "dialog" || where === "body", `focus on ${where}, behind the viewer`);
    inside += where === "dialog";
  }
  assert.ok(inside >= 6, "Tab goes round the viewer's controls");
  const count = dlg.locator(".rvw-lb-count");
  if (await count.count()) {
    const was = await count.textContent();
    await page.keyboard.press("ArrowRight");
    await until(async () => assert.notEqual(await count.textContent(), was));
    await page.keyboard.press("ArrowLeft");
    await until(async () => assert.equal(await count.textContent(), was));
  }
  await page.keyboard.press("Escape");
  await until(async () => assert.equal(await page.locator("dialog").count(), 0));
  await until(async () => assert.equal(await page.evaluate(() => document.activeElement.dataset.reviewGalleryItem !== undefined), true, "focus back on the photo"));

  // "Read the review" takes the shopper to the review on the page.
  await item.click();
  const read = dlg.locator("[data-read]");
  if (review) {
    await read.click();
    await until(async () => assert.equal(await page.locator("dialog").count(), 0));
    await until(async () => assert.equal(await page.evaluate(() => document.activeElement.closest("[data-review-id]")?.dataset.reviewId), rid));
  }

  // A photo whose review is not in the list (filtered out) still shows its review,
  // read once, without a way to it on the page.
  const other = review ? `[data-review-filter-rating='${review.rating === 2 ? 5 : 2}']` : "";
  if (other) {
    await page.click(other);
    await waitEvent(page, "loaded", 2);
    await item.click();
    await until(async () => assert.ok((await cap.innerText()).includes(review.body.slice(0, 30)), "the review read for the photo"));
    assert.equal(await dlg.locator("[data-read]").count(), 0, "no link to a review not on the page");
    await page.keyboard.press("Escape");
  }
  await clean(page, assert);
  await page.context().close();
});

test("writing form: themed file picker with name, size and remove; thank-you with the order's other products", async () => {
  // An order of two products, delivered, for the order check.
  const order = "WT-POLISH-1", email = "polish@example.com", when = new Date(Date.now() - 5 * 864e5);
  const ing = await api("POST", "/v1/ingest/orders", { headers: { Authorization: "Bearer " + en.server_key }, body: {
    channel: en.code, external_id: order, payment_state: "paid", placed_at: new Date(when - 2 * 864e5).toISOString(), customer_email: email,
    items: ["demo-candle|Fig & Cedar Candle", "demo-mug-speckled|Speckled Stoneware Mug"].map((s, i) => ({ line_reference: String(i + 1),
      variant_key: s.split("|")[0], title: s.split("|")[1], fulfilment_state: "delivered", delivered_at: when.toISOString() })) } });
  assert.ok(ing.status < 300, ing.text);

  const page = await newPage(browser, { viewport: { width: 390, height: 844 } });
  await page.goto(env.base + "/demo/demo-en/demo-candle?theme=bold");
  await settled(page);
  await page.click("[data-review-write]");
  const dlg = page.locator("dialog[open]");
  await dlg.locator("input[name=order]").fill(order);
  await dlg.locator("input[name=email]").fill(email);
  await dlg.locator("button[type=submit]").click();
  await dlg.locator(".rvw-form-product").first().waitFor();
  assert.equal(await dlg.locator(".rvw-form-product").count(), 2);

  // The picker: a real file input under a themed drop zone, reached with Tab.
  const first = dlg.locator(".rvw-form-product").first();
  const drop = first.locator(".rvw-drop");
  const input = drop.locator("input[type=file]");
  assert.equal(await input.count(), 1);
  const box = await drop.boundingBox(), ibox = await input.boundingBox();
  assert.ok(ibox.width >= box.width - 4 && ibox.height >= box.height - 4, "the input covers the drop zone (click and drop anywhere)");
  assert.equal(await drop.evaluate((d) => getComputedStyle(d, "::before").backgroundColor), "rgb(228, 0, 43)", "the bold theme's accent");
  await first.locator("textarea").focus();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.type), "file", "Tab reaches the file input");
  assert.notEqual(await drop.evaluate((d) => getComputedStyle(d).outlineStyle), "none", "focus ring on the drop zone");
  await input.setInputFiles({ name: "candle.png", mimeType: "image/png", buffer: await png(800, 600) });
  const li = first.locator(".rvw-files li");
  await li.locator("img").waitFor();
  assert.match(await li.innerText(), /candle\.png\s+\d+ kB/);
  await shot(page, "file-picker", dlg);
  assert.deepEqual(await axe(page, "dialog"), [], "axe: writing form with a file");
  await li.locator("[data-remove]").click();
  await until(async () => assert.equal(await li.count(), 0, "removed"));

  // One product reviewed: the thank-you says it is live and offers the other.
  await first.locator(".rvw-rate label[for$='-5']").click();
  await first.locator("textarea").fill("Burns evenly and smells of figs.");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/reviews") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  const state = (await res.json()).reviews[0].state;
  const done = dlg.locator(".rvw-done");
  await done.waitFor();
  assert.match(await done.textContent(), state === "published" ? /live now/ : /after a check/);
  assert.match(await dlg.locator(".rvw-next").innerText(), /Speckled Stoneware Mug/);
  assert.doesNotMatch(await dlg.locator(".rvw-next").innerText(), /Candle/);
  await shot(page, "thank-you", dlg);
  assert.deepEqual(await axe(page, "dialog"), [], "axe: thank-you step");
  // The spent order check is made again: the form for the mug alone.
  await dlg.locator("[data-again]").click();
  await until(async () => assert.equal(await page.locator("dialog[open] .rvw-form-product").count(), 1));
  assert.match(await page.locator("dialog[open] legend").first().textContent(), /Speckled/);
  await clean(page, assert);
  await page.context().close();
});

test("Turkish: the photo viewer's and the file picker's texts", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-tr/demo-mug-blue");
  await settled(page);
  const item = page.locator("[data-review-gallery-item]").first();
  if (await item.count()) {
    await item.click();
    const cap = page.locator("dialog[open] figcaption");
    await cap.locator(".rvw-stars").waitFor();
    assert.match(await cap.innerText(), /\d{1,2} (Ocak|Şubat|Mart|Nisan|Mayıs|Haziran|Temmuz|Ağustos|Eylül|Ekim|Kasım|Aralık) \d{4}/);
    if (await cap.locator("[data-read]").count()) assert.equal(await cap.locator("[data-read]").textContent(), "Değerlendirmeyi oku");
    await page.keyboard.press("Escape");
  }
  await page.click("[data-review-write]");
  const dlg = page.locator("dialog[open]");
  await dlg.locator("input[name=order]").waitFor();
  // The picker's words are the style sheet's, by the dialog's language.
  const words = await page.evaluate(() => {
    const d = document.querySelector("dialog[open] .rvw-dialog-body"), z = document.createElement("span");
    z.className = "rvw-drop";
    d.append(z);
    const w = [getComputedStyle(z, "::before").content, getComputedStyle(z, "::after").content];
    z.remove();
    return w;
  });
  assert.match(words[0], /Dosya seçin/);
  assert.match(words[1], /sürükleyin/);
  await clean(page, assert);
  await page.context().close();
});
