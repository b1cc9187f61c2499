// The writing flow: from an invitation e-mail's review link with a photo (re-encoded
// in the browser) through moderation to the review on the product page, and the
// order check from the product page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { admin, api, axe, clean, en, env, launch, mailTo, newPage, png, reviewd, until, waitEvent } from "./lib.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => {
  await admin("POST", "/admin/v1/settings", { publishing_method: "automatic" });
  await browser?.close();
});

test("invitation link: form, photo, submit, moderation, published", async () => {
  assert.ok(env.invite, "an invitation link");
  const token = /#review_token=([^&]+)/.exec(env.invite)[1];
  const set = await admin("POST", "/admin/v1/settings", { publishing_method: "manual" });
  assert.equal(set.status, 200, set.text);

  // The link opens the channel's landing page (the demo's review page) with the
  // token in the fragment, as the e-mail's link does on a store's landing_url.
  const page = await newPage(browser);
  await page.addInitScript(() => {
    const append = FormData.prototype.append;
    FormData.prototype.append = function (k, v, name) {
      if (k === "file" && v instanceof Blob) {
        window.__upload = { name, type: v.type, size: v.size };
        createImageBitmap(v).then((b) => Object.assign(window.__upload, { width: b.width, height: b.height }));
      }
      return append.apply(this, arguments);
    };
  });
  await page.goto(env.base + "/demo/demo-en/#review_token=" + token);
  const dlg = page.locator("dialog[open]");
  await dlg.locator(".rvw-form-product").waitFor();
  await until(() => assert.equal(new URL(page.url()).hash, "", "the token leaves the address bar"));
  assert.match(await dlg.locator("legend").first().textContent(), /Blue Glaze Mug/);
  assert.deepEqual(await axe(page, "dialog"), [], "axe: writing form");

  await dlg.locator(".rvw-rate label[for$='-4']").click();
  await dlg.locator("input[name$='-t']").fill("Lovely colour, solid feel");
  await dlg.locator("textarea[name$='-b']").fill("Bought it after the reviews here. The blue is deep and the mug feels solid.");
  await dlg.locator(".rvw-steps").first().locator("input[value='4']").check();
  await dlg.locator("input[name=author]").fill("Webtest Invitee");

  // A 3000 x 2000 PNG: the form re-encodes it as a JPEG 2560 px on its long side
  // (what the page puts into the upload form is recorded by the hook below).
  const [up] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/media") && r.request().method() === "POST"),
    dlg.locator("input[type=file]").setInputFiles({ name: "mug.png", mimeType: "image/png", buffer: await png(3000, 2000) })]);
  assert.equal(up.status(), 201);
  assert.match(up.request().headers()["content-type"], /^multipart\/form-data/);
  await page.waitForFunction(() => window.__upload && window.__upload.width);
  const sentFile = await page.evaluate(() => window.__upload);
  assert.deepEqual({ ...sentFile, size: 0 }, { name: "mug.jpg", type: "image/jpeg", width: 2560, height: 1707, size: 0 });
  assert.ok(sentFile.size > 0 && sentFile.size < 12 << 20);
  await dlg.locator(".rvw-files img").waitFor();

  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/reviews") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  const sent = res.request().postDataJSON();
  assert.equal(sent.token, token);
  assert.equal(sent.reviews.length, 1);
  assert.equal(sent.reviews[0].rating, 4);
  assert.equal(sent.reviews[0].media.length, 1);
  const review = (await res.json()).reviews[0];
  assert.equal(review.state, "pending");
  await until(async () => assert.match(await dlg.locator(".rvw-done").textContent(), /Thank you/));
  await clean(page, assert);

  // The media job prepares the photo; a moderator approves the review.
  await reviewd("jobs", "run", "media");
  const ok = await admin("POST", `/admin/v1/reviews/${review.id}/transition`, { event: "approve" });
  assert.equal(ok.status, 200, ok.text);

  await page.goto(env.base + "/demo/demo-en/demo-mug-blue");
  await waitEvent(page, "rendered");
  const li = page.locator(`[data-review-list] > [data-review-id="${review.id}"]`);
  await li.waitFor();
  assert.match(await li.textContent(), /Lovely colour, solid feel/);
  assert.match(await li.textContent(), /Webtest Invitee/);
  const img = li.locator(".rvw-media img");
  await img.scrollIntoViewIfNeeded();
  await page.waitForFunction((id) => {
    const i = document.querySelector(`[data-review-id="${id}"] .rvw-media img`);
    return i && i.complete && i.naturalWidth > 0;
  }, review.id);
  await clean(page, assert);
  await page.context().close();
});

test("order check: order number and e-mail, then the form", async () => {
  await admin("POST", "/admin/v1/settings", { publishing_method: "automatic" });
  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-en/demo-candle");
  await waitEvent(page, "rendered");
  await page.click("[data-review-write]");
  const dlg = page.locator("dialog[open]");
  await dlg.locator("input[name=order]").fill(env.order);
  await dlg.locator("input[name=email]").fill("wrong@example.com");
  await dlg.locator("button[type=submit]").click();
  await until(async () => assert.match(await dlg.locator(".rvw-msg").textContent(), /could not find/));

  await dlg.locator("input[name=email]").fill(env.email);
  await dlg.locator("button[type=submit]").click();
  await dlg.locator(".rvw-form-product").waitFor();
  assert.match(await dlg.locator("legend").first().textContent(), /Candle/);
  // Submitting without a rating is refused by the form itself.
  await dlg.locator("button[type=submit]").click();
  await until(async () => assert.match(await dlg.locator(".rvw-msg").textContent(), /choose a rating/));
  await dlg.locator(".rvw-rate label[for$='-5']").click();
  await dlg.locator("textarea[name$='-b']").fill("Smells wonderful and burns evenly.");
  await dlg.locator("input[name=hide]").check();
  await dlg.locator("input[name=author]").fill("Order Checker");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/reviews") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201);
  const review = (await res.json()).reviews[0];
  assert.equal(review.state, "published");
  await dlg.locator(".rvw-done").waitFor();
  await waitEvent(page, "submitted");
  await page.keyboard.press("Escape");
  // Published at once (automatic publishing): the list refreshes by itself.
  const li = page.locator(`[data-review-list] > [data-review-id="${review.id}"]`);
  await li.waitFor();
  assert.match(await li.textContent(), /O\*\*\* C\*\*\*/, "hidden name: initials only");
  await clean(page, assert);
  await page.context().close();
});

test("correction link: a rejected review is corrected in revise mode", async () => {
  const [order, email] = env.revise;
  await admin("POST", "/admin/v1/settings", { publishing_method: "manual" });
  const site = { headers: { "X-Service-Site-Key": en.site_key } };
  const tok = (await api("POST", "/v1/eligibility", { ...site, body: { order, email } })).json.token;
  const w = await api("POST", "/v1/reviews", { ...site, body: { token: tok, reviews: [{ line_reference: "1", rating: 2,
    title: "Not for me", body: "Call me on 07700 900123 to buy mine.", author_name: "Revise Tester" }] } });
  assert.equal(w.status, 201, w.text);
  const id = w.json.reviews[0].id;
  const rej = await admin("POST", `/admin/v1/reviews/${id}/transition`, { event: "reject", reason: "personal_data" });
  assert.equal(rej.status, 200, rej.text);
  const token = (await mailTo(email, /#review_token=([A-Za-z0-9._~-]+)/))[1];

  const page = await newPage(browser);
  await page.goto(env.base + "/demo/demo-en/#review_token=" + token);
  const dlg = page.locator("dialog[open]");
  await dlg.locator(".rvw-form-product").waitFor();
  assert.match(await dlg.locator("h2").textContent(), /Correct your review/);
  assert.equal(await dlg.locator("input[name$='-t']").inputValue(), "Not for me");
  assert.equal(await dlg.locator("input[name=author]").inputValue(), "Revise Tester");
  assert.equal(await dlg.locator(".rvw-rate input:checked").getAttribute("value"), "2");
  await dlg.locator("textarea[name$='-b']").fill("The speckles are lighter than in the photos.");
  await dlg.locator(".rvw-rate label[for$='-3']").click();
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/reviews/revise")),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 200, await res.text());
  const sent = res.request().postDataJSON();
  assert.equal(sent.rating, 3);
  assert.equal(sent.line_reference, undefined);
  assert.deepEqual(sent.kept_media, []);
  assert.equal((await res.json()).id, id);
  await dlg.locator(".rvw-done").waitFor();

  assert.equal((await admin("POST", `/admin/v1/reviews/${id}/transition`, { event: "approve" })).status, 200);
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled");
  await waitEvent(page, "rendered");
  assert.match(await page.locator(`[data-review-list] > [data-review-id="${id}"]`).textContent(), /lighter than in the photos/);
  await clean(page, assert);
  await page.context().close();
});

test("signed-in customer: asker token and review link from the store's server", async () => {
  await admin("POST", "/admin/v1/settings", { publishing_method: "automatic" });
  const page = await newPage(browser);
  // The demo store's server asks GET /v1/viewer for its signed-in customer.
  await page.goto(env.base + "/demo/demo-en/demo-mug-speckled?customer=viewer@example.com&name=Vera%20Viewer");
  await waitEvent(page, "questions");
  await page.click("[data-review-ask]");
  const dlg = page.locator("dialog[open]");
  await dlg.locator("textarea[name=body]").fill("Is the speckled glaze food safe?");
  assert.equal(await dlg.locator("input[name=author], input[name=email]").count(), 0, "no name or e-mail asked");
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/questions") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(res.status(), 201, await res.text());
  const sent = res.request().postDataJSON();
  assert.ok(sent.asker && !("name" in sent) && !("email" in sent));
  const q = await admin("GET", `/admin/v1/questions/${(await res.json()).id}`);
  assert.match(JSON.stringify(q.json), /Vera Viewer/);
  await page.keyboard.press("Escape");

  // The customer can review the product: the page's own link opens the form.
  await page.click(".pdp-customer a[href^='#review_token=']");
  await dlg.locator(".rvw-form-product").waitFor();
  await dlg.locator(".rvw-rate label[for$='-5']").click();
  const [w] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/v1/reviews") && r.request().method() === "POST"),
    dlg.locator("button[type=submit]").click()]);
  assert.equal(w.status(), 201, await w.text());
  await dlg.locator(".rvw-done").waitFor();
  await clean(page, assert);
  await page.context().close();
});
