// The web panel (/panel/): sign-in, keyboard moderation of ten reviews, a brand
// answer, a settings change, an axe-core check of every page at desktop and phone
// width, the page and script budgets, and a screenshot of every page.
// REVIEWD_PANEL_SHOTS names the folder the screenshots go to (docs/panel/ when
// regenerated with scripts/panel-screenshots.sh).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { admin, axe, budget, demo, env, gz, launch, until } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shots = process.env.REVIEWD_PANEL_SHOTS || (env.out ? join(env.out, "panel") : "");

async function panelPage(width = 1280, opts = {}) {
  const ctx = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 800 }, locale: "en-GB", ...opts });
  const page = await ctx.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  // Refused requests (a wrong password's 401) are expected; script errors are not.
  page.on("console", (m) => { if (m.type() === "error" && !/Failed to load resource/.test(m.text())) page.errors.push(m.text()); });
  return page;
}

async function signIn(page) {
  await page.goto(env.base + "/panel/");
  await until(() => page.url().includes("/panel/sign-in"));
  await page.fill("#username", demo.username);
  await page.fill("#password", demo.password);
  await Promise.all([page.waitForURL(env.base + "/panel/"), page.click("main button[type=submit]")]);
}

test("sign-in: a wrong password is refused on the form, the right one opens the overview", async () => {
  const page = await panelPage();
  await page.goto(env.base + "/panel/queue");
  await until(() => page.url().includes("/panel/sign-in?next=%2Fpanel%2Fqueue"));
  await page.fill("#username", demo.username);
  await page.fill("#password", "not-the-password");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/panel/sign-in") && r.request().method() === "POST"),
    page.click("main button[type=submit]")]);
  assert.equal(res.status(), 401);
  await until(async () => assert.match(await page.locator("[role=alert]").textContent(), /credentials_invalid/));
  await page.fill("#password", demo.password);
  await Promise.all([page.waitForURL(env.base + "/panel/queue"), page.click("main button[type=submit]")]);
  await until(async () => assert.equal(await page.locator("h1").first().textContent().then((t) => t.startsWith("Moderation")), true));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

const pagesToCheck = async () => {
  const rev = (await admin("GET", "/admin/v1/reviews?state=published&page_size=1")).json.items[0].id;
  const q = (await admin("GET", "/admin/v1/questions?state=published&page_size=1")).json.items[0].id;
  // The demo's review with a seller reply and a resolution note.
  let replied = null;
  for (const r of (await admin("GET", "/admin/v1/reviews?state=published&page_size=50")).json.items) {
    if ((await admin("GET", "/admin/v1/reviews/" + r.id)).json.seller_response) { replied = r.id; break; }
  }
  assert.ok(replied, "the demo has a review with a seller reply");
  return [["overview", "/panel/"], ["queue", "/panel/queue"], ["queue-one", "/panel/queue?mode=one"],
    ["reviews", "/panel/reviews"], ["review", "/panel/reviews/" + rev], ["review-reply", "/panel/reviews/" + replied], ["questions", "/panel/questions"],
    ["question", "/panel/questions/" + q], ["invitations", "/panel/invitations"], ["settings", "/panel/settings"],
    ...await adminPages()];
};

// The account, team, connection and rule pages (with the demo's data on each).
// Routes of the panel session only (no key) are read with a signed-in page's cookie.
const panelGet = async (page, path) => (await page.request.get(env.base + path, { headers: { Accept: "application/json" } })).json();

const adminPages = async () => {
  const page = await panelPage();
  await signIn(page);
  const dsr = (await panelGet(page, "/admin/v1/subject-requests?page_size=1")).items[0].id;
  const mks = (await panelGet(page, "/admin/v1/marketplace/sources")).items[0].id;
  await page.context().close();
  return [["account", "/panel/account"], ["users", "/panel/users"], ["keys", "/panel/keys"], ["secrets", "/panel/secrets"], ["channels", "/panel/channels"],
    ["privacy", "/panel/privacy"], ["privacy-request", "/panel/privacy/" + dsr], ["access-log", "/panel/access-log"],
    ["audit-log", "/panel/audit-log"], ["connections", "/panel/connections?platform=woocommerce"], ["diagnostics", "/panel/diagnostics"],
    ["marketplace", "/panel/marketplace"], ["market-source", "/panel/marketplace/" + mks],
    ["market-reviews", "/panel/marketplace/reviews"], ["rules", "/panel/rules"],
    ["terms", "/panel/terms"], ["rating-topics", "/panel/rating-topics"], ["invite-templates", "/panel/invite-templates"],
    ["review-feeds", "/panel/review-feeds"], ["brand-export", "/panel/brand-export"], ["themes", "/panel/themes"],
    ["go-live", "/panel/go-live"], ["mail", "/panel/mail"]];
};

test("every page: no axe violations, HTML under 60 KB, script under 15 KB gzip, screenshots at 1280 and 390 px", async () => {
  const js = readFileSync(new URL("../assets/panel/panel.js", import.meta.url));
  budget("panel script (gzip)", gz(js), 15 * 1024, " B");
  assert.ok(gz(js) < 15 * 1024, "panel.js under 15 KB gzip");
  const list = await pagesToCheck();
  for (const width of [1280, 390]) {
    for (const dark of [false, true]) {
      const page = await panelPage(width, { colorScheme: dark ? "dark" : "light" });
      await page.goto(env.base + "/panel/sign-in");
      assert.deepEqual(await axe(page), [], `axe: sign-in at ${width} px`);
      if (shots && !dark) await shoot(page, `sign-in-${width}`);
      await signIn(page);
      for (const [name, path] of list) {
        const res = await page.goto(env.base + path);
        assert.equal(res.status(), 200, path);
        const size = (await res.body()).length;
        if (width === 1280 && !dark) budget(`panel page HTML ${name}`, size, 60 * 1024, " B");
        assert.ok(size < 60 * 1024, `${path} HTML ${size} B under 60 KB`);
        const v = await axe(page);
        assert.deepEqual(v, [], `axe: ${path} at ${width} px${dark ? " (dark)" : ""}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} at ${width} px scrolls sideways by ${overflow} px`);
        if (shots && (!dark || name === "overview" || name === "queue")) await shoot(page, `${name}-${width}${dark ? "-dark" : ""}`);
      }
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  }
});

test("invitation template: the preview shows the e-mail in a sandboxed frame, at 1280 and 390 px in light and dark", async () => {
  for (const width of [1280, 390]) {
    for (const dark of [false, true]) {
      const page = await panelPage(width, { colorScheme: dark ? "dark" : "light" });
      await signIn(page);
      await page.goto(env.base + "/panel/invite-templates");
      await page.locator("a[href*='?edit=tpl_']").first().click();
      await page.waitForSelector("input[name=id]", { state: "attached" });
      await page.fill("#tp-subject", "Preview of {{products}}");
      await Promise.all([page.waitForURL(env.base + "/panel/invite-templates/preview"), page.click("button[formaction='/panel/invite-templates/preview']")]);
      const frame = page.frameLocator("iframe.preview");
      await until(async () => assert.match(await frame.locator("body").textContent(), /thank you for shopping/i));
      assert.equal(await page.locator("iframe.preview").getAttribute("sandbox"), "");
      // The frame runs nothing and its document is of no origin.
      const f = page.frames().find((x) => x !== page.mainFrame());
      assert.ok(f, "preview frame");
      assert.equal(await f.evaluate(() => origin).catch(() => "null"), "null");
      assert.deepEqual(await axe(page), [], `axe: template preview at ${width} px${dark ? " (dark)" : ""}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `preview at ${width} px scrolls sideways by ${overflow} px`);
      // A frame below the fold is painted once scrolled to.
      await page.locator("iframe.preview").scrollIntoViewIfNeeded();
      await until(async () => assert.match(await frame.locator("body").innerText(), /thank you for shopping/i));
      if (shots && !dark) await shoot(page, `invite-template-preview-${width}`);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  }
});

test("themes: choosing another theme changes the component's preview, with and without the script", async () => {
  const page = await panelPage();
  await signIn(page);
  await page.goto(env.base + "/panel/themes");
  const frame = page.locator("iframe.preview.component");
  const first = await frame.getAttribute("data-theme");
  const inFrame = () => page.frameLocator("iframe.preview.component").locator("body").innerHTML();
  await until(async () => assert.match(await inFrame(), new RegExp(first)));
  const other = first === "night" ? "warm" : "night";
  await page.selectOption("#th-theme", other);
  await until(async () => assert.equal(await page.locator("iframe.preview.component").getAttribute("data-theme"), other));
  await until(async () => assert.match(await inFrame(), new RegExp(other)));
  assert.match(page.url(), new RegExp("theme=" + other));
  assert.deepEqual(await axe(page), [], "axe: themes after a change");
  assert.deepEqual(page.errors, []);
  await page.context().close();
  // Without the script: the form's submit shows the chosen theme.
  const plain = await panelPage(1280, { javaScriptEnabled: false });
  await signIn(plain);
  await plain.goto(env.base + "/panel/themes");
  await plain.selectOption("#th-theme", "bold");
  await Promise.all([plain.waitForURL(/theme=bold/), plain.click("form[data-theme-form] button[type=submit]")]);
  assert.equal(await plain.locator("iframe.preview.component").getAttribute("data-theme"), "bold");
  await plain.context().close();
});

async function shoot(page, name) {
  mkdirSync(shots, { recursive: true });
  // Frames below the fold (previews) are painted once scrolled to.
  for (const f of await page.locator("iframe").all()) await f.scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  writeFileSync(join(shots, name + ".png"), await page.screenshot({ fullPage: true }));
}

test("moderation by keyboard: ten reviews decided with a and r, the queue survives a reload", async () => {
  const page = await panelPage();
  await signIn(page);
  await page.goto(env.base + "/panel/queue");
  await page.waitForSelector("body[data-ready='1']");
  const [usable, html] = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    return [performance.getEntriesByName("panel-ready")[0].startTime - nav.requestStart, nav.responseEnd - nav.requestStart];
  });
  budget("queue request to full HTML (demo data, browser)", Math.round(html), 300, " ms");
  budget("queue request to usable (demo data, browser)", Math.round(usable), 300, " ms");
  const waiting0 = (await admin("GET", "/admin/v1/moderation/queue?page_size=1")).json.counters.waiting;
  assert.ok(waiting0 >= 11, `the demo has at least 11 waiting reviews (has ${waiting0})`);

  // j moves, the position survives a reload.
  const ids = await page.locator(".qlist li").evaluateAll((l) => l.map((li) => li.dataset.id));
  await page.keyboard.press("j");
  await until(async () => assert.equal(await page.getAttribute("body", "data-shown"), ids[1], "j shows the second review"));
  await until(() => page.url().includes("at=" + ids[1]));
  await page.reload();
  await page.waitForSelector("body[data-ready='1']");
  assert.equal(await page.locator(".qlist li.current").getAttribute("data-id"), ids[1], "the focused review after a reload");
  await page.keyboard.press("k");
  await until(async () => assert.equal(await page.getAttribute("body", "data-shown"), ids[0], "k goes back"));

  const server = [];
  const decided = [];
  for (let i = 0; i < 10; i++) {
    const id = await page.getAttribute("body", "data-shown");
    const reject = i % 3 === 2;
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/panel/reviews/${id}/transition`)),
      (async () => {
        if (reject) {
          await page.keyboard.press("r");
          await until(async () => assert.equal(await page.evaluate(() => document.activeElement.name), "reason", "r opens the reason picker"));
          await page.keyboard.press("ArrowDown");
          await page.keyboard.press("Enter");
        } else {
          await page.keyboard.press("a");
        }
      })(),
    ]);
    assert.equal(res.status(), 200, `transition of ${id}`);
    const t = res.request().timing();
    server.push(t.responseStart - t.requestStart);
    decided.push([id, reject ? "rejected" : "published"]);
    await until(async () => assert.equal(await page.locator(`.qlist li[data-id="${id}"]`).count(), 0, `${id} leaves the queue`));
    await until(async () => assert.notEqual(await page.getAttribute("body", "data-shown"), id, "the next review is shown"));
  }
  // Each decision takes effect when its 10-second undo window ends.
  for (const [id, state] of decided) {
    await until(async () => assert.equal((await admin("GET", "/admin/v1/reviews/" + id)).json.state, state, id), 30000);
  }
  const hist = (await admin("GET", "/admin/v1/reviews/" + decided[0][0])).json.history;
  assert.ok(hist.some((h) => h.event === "approve" && h.actor_name === demo.username), "history names the panel user");
  server.sort((a, b) => a - b);
  const median = server[Math.floor(server.length / 2)], worst = server[server.length - 1];
  budget("keyboard moderation, server time (median of 10)", Math.round(median), 100, " ms");
  budget("keyboard moderation, server time (slowest of 10)", Math.round(worst), 100, " ms");
  assert.ok(median < 100, `median server time ${median} ms`);
  await until(async () => assert.equal(+(await page.locator("h1 [data-live=waiting]").textContent()), waiting0 - 10, "the live count"));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("questions: the brand answers a published question from the panel", async () => {
  const page = await panelPage();
  await signIn(page);
  const qs = (await admin("GET", "/admin/v1/questions?state=published&page_size=50")).json.items;
  const q = qs[qs.length - 1];
  await page.goto(env.base + "/panel/questions/" + q.id);
  const text = "Thank you for asking: it is dishwasher safe, " + ["truly", "really", "indeed"][new Date().getSeconds() % 3] + ".";
  await page.fill("#answer-body", text);
  await Promise.all([page.waitForURL(/notice=answered/), page.click("form.stack button[type=submit]")]);
  await until(async () => assert.match(await page.locator(".answers").textContent(), /dishwasher safe/));
  const d = (await admin("GET", "/admin/v1/questions/" + q.id)).json;
  assert.ok(d.answers.some((a) => a.body === text && a.kind === "brand" && a.state === "published"), "brand answer published");
  await page.context().close();
});

test("settings: a change is saved through the settings service", async () => {
  const page = await panelPage();
  await signIn(page);
  await page.goto(env.base + "/panel/settings");
  const before = (await admin("GET", "/admin/v1/settings")).json;
  const want = before.invite_delay_days === 3 ? 4 : 3;
  await page.fill("#s-delay", String(want));
  await Promise.all([page.waitForURL(/notice=saved/), page.click("form.settings > button[type=submit]")]);
  await until(async () => assert.equal((await admin("GET", "/admin/v1/settings")).json.invite_delay_days, want));
  assert.equal(await page.inputValue("#s-delay"), String(want));
  // A bad value gets the settings service's error code on the page.
  await page.fill("#s-window", "25:00-26:00");
  await page.click("form.settings > button[type=submit]");
  await until(async () => assert.match(await page.locator("[role=alert]").textContent(), /invalid/));
  await page.context().close();
});

test("keys: a key made in the panel shows its secret once, the copy button copies it, and it is revoked", async () => {
  const page = await panelPage(1280, { permissions: ["clipboard-read", "clipboard-write"] });
  await signIn(page);
  await page.goto(env.base + "/panel/keys");
  const label = "webtest key " + Date.now();
  await page.fill("#k-label", label);
  await Promise.all([page.waitForURL(env.base + "/panel/keys"), page.click("form[action='/panel/keys'] button[type=submit]")]);
  const secret = (await page.locator("#new-secret").textContent()).trim();
  assert.ok(secret.length >= 20, "a secret is shown");
  assert.deepEqual(await axe(page), [], "axe: the page with a new secret");
  if (shots) await shoot(page, "keys-created-1280");
  await page.click("[data-created] button[data-copy]");
  await until(async () => assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, "the copy button copies the secret"));
  await until(async () => assert.match(await page.locator("[data-created] [data-copied]").textContent(), /Copied/));
  const keys = (await panelGet(page, "/admin/v1/keys?page_size=100")).items;
  const made = keys.find((k) => k.label === label);
  assert.ok(made && made.kind === "site" && made.key === secret && !made.revoked_at, "the key is listed with the shown secret");
  // Shown once: the next visit does not show it.
  await page.goto(env.base + "/panel/keys");
  assert.equal(await page.locator("#new-secret").count(), 0, "the secret is not shown again");
  const row = page.locator(`tr[data-key='${made.id}']`);
  // Revoking asks first: a page says what stops working and a box is ticked.
  await Promise.all([page.waitForURL(/\/revoke$/), row.locator("a.danger").click()]);
  assert.match(await page.locator("[data-revoke-effect]").textContent(), /shows no reviews/);
  assert.deepEqual(await axe(page), [], "axe: the revoke confirmation");
  await page.check("input[name=confirm]");
  await Promise.all([page.waitForURL(/notice=key_revoked/), page.click("main button.danger[type=submit]")]);
  await until(async () => assert.ok((await panelGet(page, "/admin/v1/keys?page_size=100")).items.find((k) => k.id === made.id).revoked_at, "revoked"));
  assert.match(await page.locator(`tr[data-key='${made.id}']`).textContent(), /Revoked/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("account: turning two-step sign-in on shows the QR code and the secret once", async () => {
  for (const width of [1280, 390]) {
    const page = await panelPage(width, { colorScheme: width === 390 ? "dark" : "light" });
    await signIn(page);
    await page.goto(env.base + "/panel/account");
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/panel/account/second-step")),
      page.click("form[action='/panel/account/second-step'] button")]);
    await page.waitForSelector("img.qr");
    assert.ok(await page.evaluate(() => document.querySelector("img.qr").naturalWidth > 0), "the QR code is drawn");
    assert.match(await page.locator("#totp-secret").textContent(), /^[A-Z2-7]{16,}$/);
    assert.deepEqual(await axe(page), [], `axe: the two-step secret at ${width} px`);
    if (shots) await shoot(page, `account-second-step-${width}${width === 390 ? "-dark" : ""}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
