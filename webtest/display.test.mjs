// Display: the server-rendered component hydrated without re-rendering (CLS 0),
// the script's own rendering in the other layout and theme, screenshots, every
// filter, paging, 320 px, axe-core, and the size and speed budgets.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { api, axe, budget, clean, env, events, gz, launch, newPage, pixels, shot, until, waitEvent } from "./lib.mjs";

const PAGE = "/demo/demo-en/demo-mug-blue";
let browser;
const shots = {};

before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test("loader, content-hash files and the size budgets", async () => {
  const loader = await api("GET", "/v1/widget.js");
  assert.equal(loader.status, 200);
  assert.match(loader.headers.get("content-type"), /^text\/javascript/);
  assert.equal(loader.headers.get("cache-control"), "public, max-age=300");
  const path = /\.\.\/assets\/([0-9a-f]{16})\/reviews\.js/.exec(loader.text);
  assert.ok(path, "loader names the content-hash script");
  for (const [file, type] of [["reviews.js", /^text\/javascript/], ["reviews.css", /^text\/css/]]) {
    const r = await api("GET", `/assets/${path[1]}/${file}`);
    assert.equal(r.status, 200, file);
    assert.match(r.headers.get("content-type"), type);
    assert.equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const size = gz(Buffer.from(r.text));
    if (file === "reviews.js") {
      budget("script (gzip)", (size / 1024).toFixed(1), 20, " KB");
      assert.ok(size <= 20 * 1024, `script ${size} bytes gzip`);
      assert.doesNotMatch(r.text, /\beval\(|new Function|document\.cookie|innerHTML\s*=\s*[^;]*\bstyle=/);
    } else {
      // The file carries all eight themes; one theme's CSS is the file without the
      // other seven theme blocks.
      const one = r.text.split("\n").filter((l) => !/^\.rvw-theme-(?!warm)[a-z]+\{/.test(l)).join("\n");
      budget("theme CSS, all eight themes (gzip)", (size / 1024).toFixed(1), 6, " KB");
      budget("theme CSS, one theme (gzip)", (gz(Buffer.from(one)) / 1024).toFixed(1), 6, " KB");
      assert.ok(gz(Buffer.from(one)) <= 6 * 1024);
    }
  }
  const old = await fetch(env.base + "/assets/0000000000000000/reviews.js", { redirect: "manual" });
  assert.equal(old.status, 302, "an old hash goes to the running version");
});

test("server-rendered page: hydrated without re-rendering, no layout shift", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + PAGE);
  await waitEvent(page, "rendered");
  await waitEvent(page, "questions");
  await waitEvent(page, "view");
  await page.waitForTimeout(300);
  const r = await page.evaluate(() => ({
    mode: window.__rv.events.find((e) => e.type === "rendered").detail.mode,
    same: window.__rv.first === document.querySelector("[data-review-list] > li") && window.__rv.first.isConnected,
    renders: performance.getEntriesByName("reviews:render").length,
    cls: window.__rv.cls, shifts: window.__rv.shifts,
    version: window.Reviewd.version,
    root: document.querySelector("[data-review-version]").dataset.reviewVersion,
    ids: document.querySelectorAll("[data-review-list] > [data-review-id]").length,
  }));
  assert.equal(r.mode, "hydrate");
  assert.ok(r.same, "the server-rendered review elements stay");
  assert.equal(r.renders, 0, "nothing re-rendered");
  assert.equal(r.version, 3);
  assert.equal(r.root, "3");
  assert.equal(r.ids, 10);
  budget("layout shift over server-rendered HTML (CLS)", r.cls, 0, "");
  assert.equal(r.cls, 0, "shifts: " + r.shifts.join(" | "));
  const comp = page.locator("[data-review-version]");
  shots.warm = await shot(page, "cards-warm", comp);
  assert.deepEqual(await axe(page), [], "axe: server-rendered page");
  await clean(page, assert);
  await page.context().close();
});

test("script rendering: sidebar layout, night theme, first render budget", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + PAGE + "?render=client&style=sidebar&theme=night");
  await waitEvent(page, "rendered");
  await waitEvent(page, "questions");
  const r = await page.evaluate(() => {
    const el = document.querySelector("[data-review-product]");
    const m = performance.getEntriesByName("reviews:render");
    return { cls: el.className, mode: window.__rv.events.find((e) => e.type === "rendered").detail.mode,
      ms: m[0] && m[0].duration, n: m[0] && m[0].detail.reviews, side: !!el.querySelector(".rvw-layout > aside.rvw-side"),
      version: el.dataset.reviewVersion, bg: getComputedStyle(el).backgroundColor };
  });
  assert.equal(r.mode, "render");
  assert.match(r.cls, /\brvw--sidebar\b/);
  assert.match(r.cls, /\brvw-theme-night\b/);
  assert.ok(r.side);
  assert.equal(r.version, "3");
  assert.equal(r.n, 10, "ten reviews rendered");
  // The first render of a page load, over five loads. A busy machine (the rest of
  // the suite runs alongside) only ever adds time, and can stall any number of
  // loads: the fastest load is the render's own cost.
  const runs = [r.ms];
  for (let i = 0; i < 4; i++) {
    await page.reload();
    await waitEvent(page, "rendered");
    runs.push(await page.evaluate(() => performance.getEntriesByName("reviews:render")[0].duration));
  }
  const ms = Math.min(...runs);
  budget("first render of 10 reviews after the data arrives (fastest of 5 loads)", ms.toFixed(1), 50, " ms");
  assert.ok(ms < 50, `first render took ${runs.join(", ")} ms`);
  await waitEvent(page, "questions");
  shots.night = await shot(page, "sidebar-night", page.locator("[data-review-product]"));
  // Sanity comparison of the two screenshots: other layout (size), other theme
  // (the night theme is dark, warm is light).
  const warm = await pixels(page, shots.warm), night = await pixels(page, shots.night);
  console.log(`screenshots: cards/warm ${warm.width}x${warm.height} luminance ${warm.luminance.toFixed(0)}, ` +
    `sidebar/night ${night.width}x${night.height} luminance ${night.luminance.toFixed(0)}`);
  assert.ok(warm.luminance > 200, "warm theme is light");
  assert.ok(night.luminance < 90, "night theme is dark");
  assert.notEqual(`${warm.width}x${warm.height}`, `${night.width}x${night.height}`);
  assert.deepEqual(await axe(page), [], "axe: script-rendered sidebar, night theme");
  await clean(page, assert);
  await page.context().close();
});

// listState reads the rendered list.
const listState = (page) => page.evaluate(() => {
  const items = [...document.querySelectorAll("[data-review-list] > [data-review-id]")];
  return {
    n: items.length,
    stars: items.map((li) => li.querySelector(".rvw-stars").dataset.stars),
    verified: items.every((li) => li.querySelector("[data-review-badge=verified]")),
    media: items.every((li) => li.querySelector(".rvw-media")),
    text: items.map((li) => li.textContent.toLowerCase()),
    status: document.querySelector(".rvw-status")?.textContent || "",
  };
});

// afterLoad acts, waits for the list answer the action asked for, then until the
// rendered list passes check (assertions on the list state); returns that state.
async function afterLoad(page, act, check = () => {}) {
  const n = (await events(page, "loaded")).length;
  await act();
  await waitEvent(page, "loaded", n + 1);
  return until(async () => {
    const s = await listState(page);
    check(s);
    return s;
  });
}

test("filters, sort and paging", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + PAGE);
  await waitEvent(page, "rendered");
  await until(async () => assert.equal((await listState(page)).n, 10, "reviews on the first page"));
  const pressed = (sel) => page.getAttribute(sel, "aria-pressed");

  await afterLoad(page, () => page.click("[data-review-filter-rating='5']"), (s) =>
    assert.ok(s.n > 0 && s.stars.every((v) => v === "5"), "rating 5: " + s.stars));
  await until(async () => assert.equal(await pressed("[data-review-filter-rating='5']"), "true", "rating 5 pressed"));
  await afterLoad(page, () => page.click("[data-review-filter-rating='2']"), (s) =>
    assert.ok(s.n > 0 && s.stars.every((v) => v === "2"), "rating 2: " + s.stars));
  await afterLoad(page, () => page.click("[data-review-clear]"), (s) => assert.equal(s.n, 10, "filters cleared"));

  await afterLoad(page, () => page.click("[data-review-filter=media]"), (s) =>
    assert.ok(s.n > 0 && s.n < 10 && s.media, `media filter: ${s.n} reviews, all with media: ${s.media}`));
  await afterLoad(page, () => page.click("[data-review-filter=media]"), (s) => assert.equal(s.n, 10, "media filter off"));
  await afterLoad(page, () => page.click("[data-review-filter=verified]"), (s) =>
    assert.ok(s.n > 0 && s.verified, `verified filter: ${s.n} reviews, all verified: ${s.verified}`));
  await afterLoad(page, () => page.click("[data-review-filter=verified]"), (s) => assert.equal(s.n, 10, "verified filter off"));

  await afterLoad(page, () => page.fill("[data-review-search]", "crack"), (s) =>
    assert.ok(s.n >= 1 && s.text.every((t) => t.includes("crack")), `search "crack": ${s.n} reviews`));
  await afterLoad(page, () => page.fill("[data-review-search]", ""), (s) => assert.equal(s.n, 10, "search cleared"));

  const topic = await page.getAttribute("[data-review-topic]", "data-review-topic");
  await afterLoad(page, () => page.click(`[data-review-topic='${topic}']`), (s) =>
    assert.ok(s.n >= 2 && s.text.every((t) => t.includes(topic)), `topic ${topic}: ${s.n} reviews`));
  await afterLoad(page, () => page.click(`[data-review-topic='${topic}']`), (s) => assert.equal(s.n, 10, "topic off"));

  const sorts = await page.$$eval("[data-review-sort-select] option", (o) => o.map((x) => x.value));
  assert.ok(sorts.length >= 2, "sorts from the market's list");
  await afterLoad(page, () => page.selectOption("[data-review-sort-select]", sorts[sorts.length - 1]));
  await until(async () => assert.equal(await page.evaluate(() => window.Reviewd.get().sort), sorts[sorts.length - 1]));
  await afterLoad(page, () => page.selectOption("[data-review-sort-select]", sorts[0]));

  await afterLoad(page, () => page.click("[data-review-more]"), (s) => assert.ok(s.n > 10, `show more appends the next page: ${s.n}`));
  await page.locator("[data-review-more]").waitFor({ state: "detached" }); // last page: no more button
  assert.deepEqual(await axe(page, "[data-review-version]"), [], "axe after filtering");

  // The gallery opens a lightbox (native modal dialog, arrow keys, Escape).
  await page.click("[data-review-gallery-item]");
  await page.waitForSelector("dialog.rvw-dialog[open] .rvw-lb img");
  const first = await page.getAttribute("dialog .rvw-lb img", "src");
  await page.keyboard.press("ArrowRight");
  await until(async () => assert.notEqual(await page.getAttribute("dialog .rvw-lb img", "src"), first, "ArrowRight shows the next item"));
  assert.deepEqual(await axe(page, "dialog"), [], "axe: lightbox");
  await page.keyboard.press("Escape");
  await until(async () => assert.equal(await page.locator("dialog").count(), 0, "dialogs after Escape"));
  await clean(page, assert);
  await page.context().close();
});

test("320 px wide: no horizontal scrolling, keyboard reaches the controls", async () => {
  const page = await newPage(browser, { viewport: { width: 320, height: 700 } });
  for (const q of ["", "?render=client&style=sidebar&theme=bold"]) {
    await page.goto(env.base + PAGE + q);
    await waitEvent(page, "rendered");
    const w = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(w[0] <= w[1], `scroll width ${w[0]} > ${w[1]} (${q})`);
  }
  await shot(page, "320-sidebar-bold", page.locator("[data-review-product]"));
  await page.focus("[data-review-write]");
  await page.keyboard.press("Enter");
  await page.waitForSelector("dialog[open] input[name=order]");
  await until(async () => assert.equal(await page.evaluate(() => document.activeElement.name), "order", "the dialog takes the focus"));
  await page.keyboard.press("Escape");
  await until(async () => assert.equal(await page.evaluate(() => document.activeElement.dataset.reviewWrite), "", "focus returns to the button"));
  await clean(page, assert);
  await page.context().close();
});

test("Turkish: every text from the words object", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-tr/demo-mug-blue?render=client&theme=natural");
  await waitEvent(page, "rendered");
  await waitEvent(page, "questions");
  const text = await page.locator("[data-review-product]").innerText();
  for (const want of ["Değerlendirmeler", "Değerlendirme yaz", "Faydalı oldu mu?", "Sorular ve cevaplar", "Doğrulanmış alıcı",
    "Soru sor", "Puan dağılımı"]) {
    assert.ok(text.includes(want) || (await page.locator(`[aria-label*="${want}"]`).count()) > 0, want);
  }
  assert.match(text, /\d{1,2} (Ocak|Şubat|Mart|Nisan|Mayıs|Haziran|Temmuz|Ağustos|Eylül|Ekim|Kasım|Aralık) \d{4}/);
  assert.match(text, /4,\d/, "decimal comma");
  assert.doesNotMatch(text, /\b(Reviews|Write a review|helpful|Report)\b/);
  await page.click("[data-review-write]");
  const dlg = page.locator("dialog[open]");
  await until(async () => assert.match(await dlg.innerText(), /Sipariş numarası[\s\S]*E-posta adresi[\s\S]*Devam et/));
  assert.deepEqual(await axe(page), [], "axe: Turkish, natural theme, dialog open");
  await clean(page, assert);
  await page.context().close();
});

test("all eight themes in both layouts: no serious or critical axe findings", async () => {
  const page = await newPage(browser);
  const themes = ["warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"];
  for (const [i, theme] of themes.entries()) {
    const style = i % 2 ? "sidebar" : "cards";
    await page.goto(env.base + `/demo/demo-en/demo-candle?render=client&style=${style}&theme=${theme}`);
    await waitEvent(page, "rendered");
    await page.click("[data-review-filter=verified]");
    await waitEvent(page, "loaded", 2);
    await until(async () => assert.equal(await page.getAttribute("[data-review-filter=verified]", "aria-pressed"), "true"));
    // axe measures colours as they are: wait out the pressed button's transition.
    await until(() => page.evaluate(() => document.getAnimations().every((a) => a.playState !== "running")));
    assert.deepEqual(await axe(page, "[data-review-product]"), [], `axe: ${style}, ${theme}`);
  }
  await clean(page, assert);
  await page.context().close();
});

test("opt-in transparency line: server-rendered and script-rendered, in the page's language", async () => {
  const page = await newPage(browser);
  await page.goto(env.base + PAGE);
  await waitEvent(page, "rendered");
  assert.equal(await page.locator("[data-review-link=transparency]").count(), 0, "not shown without the attribute");
  await page.goto(env.base + PAGE + "?transparency=1");
  await waitEvent(page, "rendered");
  const en = page.locator("[data-review-link=transparency]");
  assert.equal(await en.count(), 1);
  assert.equal(await en.textContent(), "Moderation is publicly verifiable");
  assert.ok((await en.getAttribute("href")).endsWith("/v1/transparency/report"));
  const rep = await page.request.get(await en.getAttribute("href"));
  assert.equal(rep.status(), 200, "the link opens the report");
  await page.goto(env.base + "/demo/demo-tr/demo-mug-blue?render=client&transparency=1");
  await waitEvent(page, "rendered");
  assert.equal(await page.locator("[data-review-link=transparency]").textContent(), "Moderasyon herkesçe doğrulanabilir");
  await clean(page, assert);
  await page.context().close();
});
