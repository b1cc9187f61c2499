// Undo of a panel decision and review dates in the channel's time zone.
// - The queue at 1280 and 390 px: approve (a) takes the row out at once and a
//   toast offers Undo for 10 s; Undo (the button, or u) puts the row back where it
//   was and the review stays waiting with nothing in its history; axe finds
//   nothing with the toast shown. Without the script, the next page offers Undo.
// - Dates: the server-rendered page and the script's own render (render=client)
//   write every review's date alike, in the channel's zone, even for a visitor
//   whose browser is in another zone.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { admin, axe, demo, env, launch, newPage, until } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shots = env.out ? join(env.out, "undo") : "";
const shoot = async (page, name) => {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, name + ".png"), await page.screenshot({ fullPage: false }));
};

async function panel(width, opts = {}) {
  const ctx = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 800 }, locale: "en-GB", ...opts });
  const page = await ctx.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  await page.goto(env.base + "/panel/sign-in?next=%2Fpanel%2Fqueue");
  await page.fill("#username", demo.username);
  await page.fill("#password", demo.password);
  await Promise.all([page.waitForURL(env.base + "/panel/queue"), page.click("main button[type=submit]")]);
  return page;
}

const history = async (id) => (await admin("GET", "/admin/v1/reviews/" + id)).json;

for (const width of [1280, 390]) {
  test(`undo at ${width} px: the row leaves with a toast, Undo puts it back and nothing is decided`, async () => {
    const page = await panel(width);
    await page.waitForSelector("body[data-ready='1']");
    const ids = await page.locator(".qlist li").evaluateAll((l) => l.map((li) => li.dataset.id));
    assert.ok(ids.length >= 1, "the demo has waiting reviews");
    const id = await page.getAttribute("body", "data-shown");
    const at = ids.indexOf(id);
    const before = await history(id);
    const waiting = Number(await page.locator("h1 [data-live=waiting]").textContent());

    await page.keyboard.press("a");
    const toast = page.locator(`[data-toast="${id}"]`);
    await toast.waitFor();
    assert.match(await toast.textContent(), /^Approved · u Undo$/);
    assert.equal(await page.locator(`.qlist li[data-id="${id}"]`).count(), 0, "the row leaves at once");
    assert.equal(Number(await page.locator("h1 [data-live=waiting]").textContent()), waiting - 1);
    assert.equal((await history(id)).state, "pending", "not in effect inside the window");
    assert.deepEqual(await axe(page), [], `axe with the toast at ${width} px`);
    const box = await toast.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= width, `the toast fits ${width} px`);
    await shoot(page, `toast-${width}`);

    if (width > 800) await toast.locator("button").click();
    else await page.keyboard.press("u");
    await until(async () => assert.equal(await page.getAttribute("body", "data-undone"), id));
    assert.equal(await page.locator("[data-toast]").count(), 0, "the toast is gone");
    const now = await page.locator(".qlist li").evaluateAll((l) => l.map((li) => li.dataset.id));
    assert.equal(now.indexOf(id), at, "the row is back where it was");
    assert.equal(Number(await page.locator("h1 [data-live=waiting]").textContent()), waiting);
    await until(async () => assert.equal(await page.getAttribute("body", "data-shown"), id, "the review is shown again"));
    await shoot(page, `undone-${width}`);

    // Past the window nothing happens: the review waits, its history unchanged.
    await new Promise((ok) => setTimeout(ok, 11500));
    const after = await history(id);
    assert.equal(after.state, "pending");
    assert.equal(after.history.length, before.history.length, "no history entry for an undone decision");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test("undo without the script: the next page offers Undo as a form", async () => {
  const page = await panel(1280, { javaScriptEnabled: false });
  await page.goto(env.base + "/panel/queue");
  const id = await page.locator(".qlist li.current").getAttribute("data-id");
  await Promise.all([page.waitForURL(/notice=held_approve/), page.click(`article[data-review="${id}"] form[data-action=approve] button`)]);
  const notice = page.locator("[data-undo-notice]");
  assert.match(await notice.textContent(), /Approved · Undo/);
  assert.equal(await page.locator(`.qlist li[data-id="${id}"]`).count(), 0);
  await shoot(page, "undo-no-script");
  await Promise.all([page.waitForURL(/notice=undone/), notice.locator("button").click()]);
  assert.equal(await page.locator(`.qlist li[data-id="${id}"]`).count(), 1, "back in the queue");
  assert.equal((await history(id)).state, "pending");
  await page.context().close();
});

// The dates of the server-rendered page and of the script's own render, by review.
const dates = async (page) => page.locator("[data-review-list] > [data-review-id]").evaluateAll((l) =>
  Object.fromEntries(l.map((li) => [li.dataset.reviewId, [li.querySelector("time").getAttribute("datetime"), li.querySelector("time").textContent]])));

const day = (iso, tz) => new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(iso));

for (const [channel, zone] of [["demo-en", "Europe/London"], ["demo-tr", "Europe/Istanbul"]]) {
  test(`dates of ${channel}: SSR and the script's render agree, in ${zone}, for a visitor in another zone`, async () => {
    const path = `/demo/${channel}/demo-mug-blue`;
    const load = async (timezoneId) => {
      const page = await newPage(browser, { timezoneId });
      const [res] = await Promise.all([page.waitForResponse((r) => r.url().includes("/v1/reviews/list")), page.goto(env.base + path + "?render=client")]);
      await page.waitForSelector("[data-review-list] > [data-review-id] time");
      return [page, await res.json()];
    };
    let [client, list] = await load("UTC");
    assert.equal(list.time_zone, zone, "the list answer names the channel's zone");
    // A visitor's zone in which some review falls on another day than in the
    // channel's (one of UTC+14 and UTC-11 always is, whatever the hour).
    const visitor = ["Pacific/Kiritimati", "Pacific/Pago_Pago"].find((tz) => list.reviews.some((r) => day(r.published_at, tz) !== day(r.published_at, zone)));
    assert.ok(visitor, "a visitor zone where the dates differ");
    await client.context().close();
    [client, list] = await load(visitor);
    const ssr = await newPage(browser, { timezoneId: visitor });
    await ssr.goto(env.base + path);
    await ssr.waitForSelector("[data-review-list] > [data-review-id] time");
    const server = await dates(ssr), script = await dates(client);
    const shared = Object.keys(server).filter((id) => script[id]);
    assert.ok(shared.length > 0, "reviews on both renders");
    for (const id of shared) assert.deepEqual(script[id], server[id], `date of ${id} (visitor in ${visitor})`);
    for (const r of list.reviews) if (script[r.id]) assert.equal(script[r.id][0], day(r.published_at, zone), `zone of ${r.id}`);
    assert.deepEqual([...ssr.errors, ...client.errors], []);
    await ssr.context().close();
    await client.context().close();
  });
}
