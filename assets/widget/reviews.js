/* reviewd page script, page component contract 3 (docs/page-contract.md).
   Plain modern JavaScript served as written: no framework, no build step, no
   cookies, no requests to anyone but reviewd, no eval and no inline code, so a
   strict Content-Security-Policy works. Texts come from the words object of the
   list answer (tr and en). */
(() => {
"use strict";
const W = window, D = document;
if (W.Reviewd && W.Reviewd.version) return;
const ME = D.currentScript, SRC = ME && ME.src || "";
const DIR = SRC && new URL(".", SRC).href;
const BASE = SRC && new URL("../../", SRC).href.replace(/\/$/, "");
const CFG = ME ? ME.dataset : {};
const comps = [], byEl = new WeakMap(), S = {token: ""};
let seq = 0, visitorKey = "";

// ---- helpers --------------------------------------------------------------
const esc = v => String(v ?? "").replace(/[&<>"']/g, c => "&#" + c.charCodeAt(0) + ";");
const wd = (w, k, vars) => String(w && w[k] || "").replace(/\{(\w+)\}/g, (m, n) => vars && n in vars ? vars[n] : m);
// wn is a counted label in the plural form of the language (k_one for "one").
const wn = (w, k, n, lang) => wd(w, w[k + "_one"] && new Intl.PluralRules(lang).select(+n) === "one" ? k + "_one" : k, {n});
const num = (v, lang) => { const s = (+v || 0).toFixed(1); return lang === "tr" ? s.replace(".", ",") : s; };
const stars = (v, label) => `<span class="rvw-stars" data-stars="${+v || 0}" role="img" aria-label="${esc(label)}"><span class="rvw-stars-fill" aria-hidden="true"></span></span>`;
// Dates as the server writes them, in the visitor's time zone (Intl is slow at first use).
const MONTHS = {tr: "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık".split(" "),
  en: "January February March April May June July August September October November December".split(" ")};
const time = (iso, lang, tz) => {
  const d = new Date(iso), [y, m, n] = tz ? zoned(d, tz) : [d.getFullYear(), d.getMonth(), d.getDate()], p = v => String(v).padStart(2, "0");
  return `<time datetime="${y}-${p(m + 1)}-${p(n)}">${lang === "tr" ? `${n} ${MONTHS.tr[m]} ${y}` : `${MONTHS.en[m]} ${n}, ${y}`}</time>`;
};
// zoned: year, month, day in the channel's time_zone (as the server dates them).
const zones = {};
function zoned(d, tz) {
  try {
    const v = {};
    for (const x of (zones[tz] || (zones[tz] = new Intl.DateTimeFormat("en", {timeZone: tz, year: "numeric", month: "numeric", day: "numeric"}))).formatToParts(d)) v[x.type] = +x.value;
    return [v.year, v.month - 1, v.day];
  } catch (e) { return [d.getFullYear(), d.getMonth(), d.getDate()]; }
}
const emit = (el, type, detail) => (el || D).dispatchEvent(new CustomEvent("reviews:" + type, {bubbles: true, detail}));
const $ = (el, sel) => el.querySelector(sel), $$ = (el, sel) => el.querySelectorAll(sel);
const mem = {}, store = { // localStorage, or memory when the browser refuses it
  get(k) { try { return JSON.parse(localStorage.getItem("reviewd:" + k)) ?? mem[k] ?? null; } catch (e) { return mem[k] ?? null; } },
  set(k, v) { mem[k] = v; try { localStorage.setItem("reviewd:" + k, JSON.stringify(v)); } catch (e) { /* memory only */ } },
};

// cid is a component's id prefix: FNV-1a of scope and product, as the server's.
function cid(scope, product) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(scope + "\0" + product)) h = Math.imul(h ^ b, 16777619) >>> 0;
  return "rvw-" + h.toString(36);
}

// visitor is the stable visitor key of this browser (localStorage, no cookie).
function visitor() {
  if (!visitorKey && !(visitorKey = store.get("visitor"))) {
    visitorKey = Array.from(crypto.getRandomValues(new Uint8Array(16)), b => b.toString(16).padStart(2, "0")).join("");
    store.set("visitor", visitorKey);
  }
  return visitorKey;
}

// api calls reviewd: the site key in key= on reads and in X-Service-Site-Key on
// writes, never credentials. A failure rejects with {status, error, detail}.
async function api(key, method, path, o = {}) {
  const u = new URL(BASE + path), init = {method, credentials: "omit", headers: {}};
  if (method === "GET") u.searchParams.set("key", key);
  else init.headers["X-Service-Site-Key"] = key;
  for (const [k, v] of Object.entries(o.query || {})) if (v !== "" && v != null) u.searchParams.set(k, v);
  if (o.token) init.headers["X-Service-Token"] = o.token;
  if (o.form) init.body = o.form;
  else if (o.body) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(o.body); }
  let res, data = null;
  try { res = await fetch(u, init); } catch (e) { throw {status: 0, error: "network", detail: ""}; }
  try { data = await res.json(); } catch (e) { /* 204 or not JSON */ }
  if (!res.ok) throw {status: res.status, error: data && data.error || "error", detail: data && data.detail || ""};
  return data;
}

function ensureCSS() {
  if (!DIR || $(D, 'link[href*="reviews.css"]')) return;
  const l = D.createElement("link");
  l.rel = "stylesheet";
  l.href = DIR + "reviews.css";
  D.head.append(l);
}

// comp finds a started component by element (or an element inside it) or product.
function comp(t) {
  if (!t) return comps[0];
  if (typeof t === "string") return comps.find(c => c.product === t);
  return byEl.get(t) || comps.find(c => c.el.contains(t));
}

// ---- markup (the same as GET /v1/ssr renders) ------------------------------
// The machine-made summary (ai_summary): the texts are those of ai.Word.
const AIW = {tr: {h: "Yorumların özeti", s: "Kaynak yorum", positive: "olumlu", negative: "olumsuz", mixed: "karışık"},
  en: {h: "Summary of reviews", s: "Source review", positive: "positive", negative: "negative", mixed: "mixed"}};
function aiHTML(d, id) {
  const a = d.ai_summary, t = AIW[d.language] || AIW.en;
  if (!a) return "";
  let n = 0;
  return `<section class="rvw-ai-summary" aria-labelledby="${id}-ai-summary" data-review-summary><h3 id="${id}-ai-summary">${esc(t.h)}</h3><p class="rvw-ai-label" data-review-summary-label>${esc(a.label)}</p><p class="rvw-ai-text">${a.sentences.map(x => `<span class="rvw-ai-sentence">${esc(x.text)}</span>${x.review_ids.map(r => ` <a href="#${esc(r)}-h" data-review-cite="${esc(r)}" aria-label="${esc(t.s)} ${++n}">[${n}]</a>`).join("")} `).join("")}</p>` +
    (a.topics && a.topics.length ? `<ul class="rvw-ai-topics">${a.topics.map(p => `<li data-review-sentiment="${esc(p.sentiment)}">${esc(p.topic)} <span class="rvw-topic-count">(${p.count})</span> <span class="rvw-sentiment">${esc(t[p.sentiment])}</span></li>`).join("")}</ul>` : "") + "</section>";
}
function summaryHTML(c) {
  const d = c.data, w = d.words, ag = d.aggregate, L = d.language, co = d.core || {}, id = c.id;
  let s = `<header class="rvw-summary"><h2 class="rvw-title" id="${id}-title">${esc(w.reviews)}</h2>`;
  if (ag.count) {
    s += `<p class="rvw-aggregate" data-review-aggregate>${stars(ag.stars_filled, wd(w, "stars_label", {n: num(ag.average, L)}))} <span class="rvw-average">${num(ag.average, L)}</span> <span class="rvw-count">${esc(wn(w, "review_count", ag.count, L))}</span></p><ul class="rvw-distribution" aria-label="${esc(w.distribution)}">`;
    for (let r = 5; r; r--) {
      const n = ag.distribution[r] || 0, lb = esc(wn(w, "filter_rating", r, L));
      s += `<li><button type="button" class="rvw-dist-row" data-review-filter-rating="${r}" aria-label="${lb}: ${n}"><span class="rvw-dist-label">${lb}</span> <meter min="0" max="${Math.max(1, ag.count)}" value="${n}" aria-hidden="true"></meter> <span class="rvw-dist-count">${n}</span></button></li>`;
    }
    s += "</ul>" + (ag.imported_label ? `<p class="rvw-imported">${esc(ag.imported_label)}</p>` : "");
  } else s += `<p class="rvw-empty">${esc(w.no_reviews)}</p>`;
  if (d.aspects && d.aspects.length) s += `<section class="rvw-aspects" aria-labelledby="${id}-aspects"><h3 id="${id}-aspects">${esc(w.aspects)}</h3><dl>${d.aspects.map(a => `<div class="rvw-aspect" data-review-aspect="${esc(a.key)}"><dt>${esc(a.label)}</dt><dd><meter min="0" max="1" value="${a.position}">${esc(a.step_label)}</meter> <span class="rvw-aspect-step">${esc(a.step_label)}</span></dd></div>`).join("")}</dl></section>`;
  s += aiHTML(d, id);
  if (d.topics && d.topics.length) s += `<section class="rvw-topics" aria-labelledby="${id}-topics"><h3 id="${id}-topics">${esc(w.topics)}</h3><ul>${d.topics.map(t => `<li><button type="button" data-review-topic="${esc(t.topic)}">${esc(t.topic)} <span class="rvw-topic-count">(${t.count})</span></button></li>`).join("")}</ul></section>`;
  const ms = co.method_statement || {};
  s += `<p class="rvw-links">${ms.url ? `<a href="${esc(ms.url)}" data-review-link="method-statement" rel="nofollow">${esc(ms.label)}</a>` : ""}${d.privacy_url ? ` <a href="${esc(d.privacy_url)}" data-review-link="privacy" rel="nofollow">${esc(w.privacy_notice)}</a>` : ""}</p>`;
  return s + `<p class="rvw-write-row"><button type="button" class="rvw-write" data-review-write>${esc(w.write_review)}</button></p></header>`;
}

// verifiable adds the transparency report link when data-review-transparency (on
// the component or around it) or data-transparency (on the script) asks for it.
function verifiable(c) {
  const v = (c.el.closest("[data-review-transparency]") || c.el).dataset.reviewTransparency ?? CFG.transparency, p = $(c.el, ".rvw-links");
  if (v == null || v === "false" || !p || $(p, "[data-review-link=transparency]")) return;
  p.insertAdjacentHTML("beforeend", ` <a href="${esc(BASE)}/v1/transparency/report" data-review-link="transparency" rel="nofollow">${c.data.language === "tr" ? "Moderasyon herkesçe doğrulanabilir" : "Moderation is publicly verifiable"}</a>`);
}

function streamHTML(c) {
  const d = c.data, w = d.words, id = c.id, co = d.core || {};
  let s = "";
  if (d.gallery && d.gallery.length) s += `<section class="rvw-gallery" aria-labelledby="${id}-gallery"><h3 id="${id}-gallery">${esc(w.gallery)}</h3><ul>${d.gallery.map((g, i) => `<li><button type="button" data-review-gallery-item="${esc(g.id)}" data-review-id="${esc(g.review_id)}"><img src="${esc(g.kind === "video" && g.poster_url ? g.poster_url : g.url)}"${g.srcset ? ` srcset="${esc(g.srcset)}" sizes="72px"` : ""} alt="${esc(g.alt_text || (g.anonymous ? "" : g.author) || w.photo + " " + (i + 1))}" width="${g.width}" height="${g.height}" loading="lazy" decoding="async"></button></li>`).join("")}</ul></section>`;
  if (d.aggregate.count) {
    s += `<div class="rvw-controls">`;
    if (d.sorts.length > 1) s += `<label class="rvw-sort">${esc(w.sort_label)} <select data-review-sort-select${co.sort && co.sort.locked ? " disabled" : ""}>${d.sorts.map(o => `<option value="${esc(o.code)}"${o.code === d.sort ? " selected" : ""}>${esc(o.label)}</option>`).join("")}</select></label>`;
    s += `<input type="search" class="rvw-search" data-review-search maxlength="100" placeholder="${esc(w.search_placeholder)}" aria-label="${esc(w.search_placeholder)}"><button type="button" class="rvw-chip" data-review-filter="verified" aria-pressed="false">${esc(w.filter_verified)}</button><button type="button" class="rvw-chip" data-review-filter="media" aria-pressed="false">${esc(w.filter_media)}</button></div>`;
  }
  if (d.shared > 0) s += `<p class="rvw-shared">${esc(w.shared_note)}</p>`;
  s += `<ol class="rvw-list" data-review-list>${d.reviews.map(r => reviewHTML(c, r)).join("")}</ol>`;
  return s + (d.pages > d.page ? pagerHTML(c) : "");
}

const pagerHTML = c => `<nav class="rvw-pager" aria-label="${esc(wd(c.data.words, "page_of", {page: c.data.page, pages: c.data.pages}))}"><button type="button" data-review-more>${esc(c.data.words.show_more)}</button></nav>`;

function reviewHTML(c, r) {
  const d = c.data, w = d.words, L = d.language, proc = r.experience === "process", id = esc(r.id), sl = wd(w, "stars_label", {n: r.rating});
  let s = `<li class="rvw-review${proc ? " rvw-review--process" : ""}${r.origin !== "own" ? " rvw-review--" + esc(r.origin) : ""}" data-review-id="${id}"><article aria-labelledby="${id}-${r.title ? "h" : "a"}" lang="${esc(r.language)}"><header class="rvw-review-head">${featHTML(r)}${stars(r.rating, sl)}${r.title ? `<h3 class="rvw-review-title" id="${id}-h">${esc(r.title)}</h3>` : ""}<p class="rvw-meta"><span class="rvw-author${r.anonymous ? " rvw-author--anonymous" : ""}" id="${id}-a">${esc(r.anonymous ? w.anonymous : r.author)}</span> ${time(r.published_at, L, d.time_zone)}${r.verified ? ` <span class="rvw-badge" data-review-badge="verified">${esc(w.verified_purchase)}</span>` : ""}${r.incentive_label ? ` <span class="rvw-badge" data-review-badge="incentivized">${esc(r.incentive_label)}</span>` : ""}</p>`;
  if (r.origin_label) s += `<p class="rvw-origin" data-review-origin="${esc(r.origin)}">${r.origin_url ? `<a href="${esc(r.origin_url)}" rel="nofollow noopener" target="_blank">${esc(r.origin_label)}</a>` : esc(r.origin_label)}</p>`;
  if (proc) s += `<p class="rvw-experience" data-review-experience="process">${esc(w.experience_process)}</p>`;
  s += `</header><div class="rvw-body">${String(r.body || "").split("\n\n").map(p => p.trim()).filter(Boolean).map(p => `<p>${esc(p)}</p>`).join("")}</div>`;
  if (r.aspects && r.aspects.length) s += `<dl class="rvw-review-aspects">${r.aspects.map(a => `<div><dt>${esc(a.label)}</dt><dd>${esc(a.step_label)}</dd></div>`).join("")}</dl>`;
  if (r.media && r.media.length) s += `<ul class="rvw-media">${r.media.map(m => `<li>${m.kind === "video" ? `<video controls preload="none" src="${esc(m.url)}"${m.poster_url ? ` poster="${esc(m.poster_url)}"` : ""} width="${m.width}" height="${m.height}" data-review-media="${esc(m.id)}"></video>` : `<img src="${esc(m.url)}" srcset="${esc(m.srcset)}" sizes="(max-width: 640px) 50vw, 160px" alt="${esc(m.alt_text)}" width="${m.width}" height="${m.height}" loading="lazy" decoding="async" data-review-media="${esc(m.id)}">`}</li>`).join("")}</ul>`;
  for (const [k, cls] of [["seller_response", "seller"], ["resolution", "resolution"]]) {
    if (r[k]) s += `<div class="rvw-response rvw-response--${cls}" data-review-response="${cls}"><p class="rvw-response-title">${esc(w[k])}</p><p>${esc(r[k].body)}</p></div>`;
  }
  return s + `<footer class="rvw-actions"><span class="rvw-helpful-question">${esc(w.helpful_question)}</span> <button type="button" data-review-vote="up" aria-pressed="false">${esc(w.helpful)} <span data-review-count="up">${r.helpful_count}</span></button> <button type="button" data-review-vote="down" aria-pressed="false">${esc(w.unhelpful)} <span data-review-count="down">${r.unhelpful_count}</span></button> <button type="button" class="rvw-report" data-review-report>${esc(w.report)}</button></footer></article></li>`;
}

// ---- components ------------------------------------------------------------
function stateOf(el) {
  const n = el.nextElementSibling, s = $(el, "script[data-review-state]") || (n && n.matches("script[data-review-state]") ? n : null);
  try { return s && JSON.parse(s.textContent); } catch (e) { return null; }
}

// take keeps a list answer; page 1 replaces the reviews read so far.
function take(c, d) {
  c.data = d;
  c.rev = d.page > 1 ? c.rev.concat(d.reviews) : d.reviews.slice();
  c.style = c.el.dataset.reviewStyle || d.style || "cards";
  c.theme = c.el.dataset.reviewTheme || d.theme || "warm";
  emit(c.el, "loaded", {product: c.product, scope: c.scope, data: d});
}

// fetchList reads a page with the filters (null when overtaken).
async function fetchList(c, page) {
  const n = ++c.req, q = c.q;
  const d = await api(c.key, "GET", "/v1/reviews/list", {query: {product: c.product, scope: c.scope, lang: c.lang, page,
    page_size: c.size, sort: q.sort, rating: q.rating, verified: q.verified, media: q.media, q: q.q, topic: q.topic, via: "script"}});
  if (n !== c.req) return null;
  c.t0 = performance.now();
  take(c, d);
  return d;
}

function measure(c) {
  if (c.t0 == null) return;
  performance.measure("reviews:render", {start: c.t0, end: performance.now(), detail: {product: c.product, reviews: c.data.reviews.length}});
  c.t0 = null;
}

// draw renders the whole component into its element (default mode).
function draw(c) {
  const el = c.el, d = c.data, keep = $(el, ":scope > link[rel=stylesheet]");
  el.classList.add("rvw", "rvw--" + c.style, "rvw-theme-" + c.theme);
  el.lang = d.language;
  if (el.localName !== "section") el.setAttribute("role", "region");
  el.setAttribute("aria-labelledby", c.id + "-title");
  for (const [k, v] of Object.entries({version: 3, scope: c.scope, style: c.style, theme: c.theme, lang: d.language, page: d.page, pages: d.pages, sort: d.sort})) el.setAttribute("data-review-" + k, v);
  const sum = summaryHTML(c), str = streamHTML(c);
  el.innerHTML = c.style === "sidebar" ? `<div class="rvw-layout"><aside class="rvw-side">${sum}</aside><div class="rvw-main">${str}</div></div>` : sum + str;
  if (keep) el.prepend(keep);
  verifiable(c);
  if (c.qa) drawQA(c, c.qa);
  paint(c);
  cap(c);
  measure(c);
}

// relist replaces (or, with more, extends) the review list and its pager.
function relist(c, more) {
  const el = c.el, d = c.data, list = $(el, "[data-review-list]");
  if (!list) return;
  const html = d.reviews.map(r => reviewHTML(c, r)).join("");
  if (more) list.insertAdjacentHTML("beforeend", html);
  else list.innerHTML = html || `<li class="rvw-empty">${esc(d.words.no_results)}</li>`;
  const pg = $(el, ".rvw-pager");
  if (pg) pg.remove();
  if (d.pages > d.page) list.insertAdjacentHTML("afterend", pagerHTML(c));
  el.setAttribute("data-review-page", d.page);
  el.setAttribute("data-review-pages", d.pages);
  paint(c);
  cap(c, more);
  measure(c);
}

// paint sets pressed states: filters, topics and this visitor's votes.
function paint(c) {
  const el = c.el, q = c.q, votes = store.get("votes") || {};
  for (const b of $$(el, "[data-review-filter-rating]")) b.setAttribute("aria-pressed", b.dataset.reviewFilterRating === q.rating);
  for (const b of $$(el, "[data-review-filter]")) b.setAttribute("aria-pressed", !!q[b.dataset.reviewFilter]);
  for (const b of $$(el, "[data-review-topic]")) b.setAttribute("aria-pressed", b.dataset.reviewTopic === q.topic);
  for (const b of $$(el, "[data-review-vote]")) {
    const r = b.closest("[data-review-id]");
    if (r) b.setAttribute("aria-pressed", votes[r.dataset.reviewId] === b.dataset.reviewVote);
  }
}

async function render(el) {
  if (byEl.has(el)) return refresh(el);
  const a = el.dataset, shown = /^(coded|headless)$/.test(a.reviewShown) ? a.reviewShown : "default";
  const c = {el, shown, product: a.reviewProduct, scope: a.reviewScope || "variant", lang: a.reviewLang || CFG.lang || "",
    key: a.reviewKey || CFG.key || "", asker: (el.closest("[data-review-asker]") || el).dataset.reviewAsker || "", size: a.reviewPageSize || "", q: {}, rev: [], req: 0};
  c.id = cid(c.scope, c.product);
  byEl.set(el, c);
  comps.push(c);
  c.ssr = shown === "default" && el.hasAttribute("data-review-version") && !!$(el, "[data-review-list]");
  if (c.ssr) c.q.sort = a.reviewSort || "";
  if (shown === "default") ensureCSS();
  bind(c);
  try {
    const st = stateOf(el);
    if (st) take(c, st);
    else await fetchList(c, 1);
    if (shown === "default" && !c.ssr) draw(c);
    else paint(c);
    if (shown === "default") verifiable(c), cap(c);
    emit(el, "rendered", {product: c.product, mode: c.ssr ? "hydrate" : shown === "default" ? "render" : shown});
  } catch (e) {
    emit(el, "error", Object.assign({action: "load"}, e));
    return null;
  }
  countView(c);
  if (shown === "default" && c.data.questions_enabled) questions(c).catch(e => emit(el, "error", Object.assign({action: "questions"}, e)));
  return c.data;
}

function init(root) {
  const all = [];
  for (const el of $$(root || D, "[data-review-product]:not([data-review-badge])")) {
    if (!byEl.has(el) && !(el.parentElement && el.parentElement.closest("[data-review-product]"))) all.push(render(el));
  }
  badges(root);
  channels(root);
  return Promise.all(all);
}

// ---- star badges of listing pages (data-review-badge="stars") ----------------
// One GET /v1/reviews/badges per key, scope and language for up to 50 products;
// an element already holding markup (GET /v1/ssr/badges) is left as it is.
async function badges(root) {
  const groups = {};
  for (const el of $$(root || D, '[data-review-badge="stars"][data-review-product]')) {
    if (byEl.has(el) || el.childElementCount) continue;
    byEl.set(el, 0);
    const a = el.dataset, k = [a.reviewKey || CFG.key, a.reviewScope || "variant", a.reviewLang || CFG.lang || ""].join("\n");
    (groups[k] = groups[k] || new Map());
    const g = groups[k], els = g.get(a.reviewProduct) || [];
    g.set(a.reviewProduct, els.concat(el));
  }
  const out = [];
  for (const [k, g] of Object.entries(groups)) {
    const [key, scope, lang] = k.split("\n"), ps = [...g.keys()];
    for (let i = 0; i < ps.length; i += 50) out.push(api(key, "GET", "/v1/reviews/badges", {query: {products: ps.slice(i, i + 50).join(), scope, lang}}).then(d => {
      ensureCSS();
      for (const b of d.badges) for (const el of b.count ? g.get(b.product) : []) {
        el.classList.add("rvw", "rvw-rating", "rvw-theme-" + (el.dataset.reviewTheme || d.theme));
        el.innerHTML = stars(b.stars_filled, b.label) + ` <span class="rvw-rating-n" aria-hidden="true">${num(b.average, d.language)} (${b.count})</span>`;
      }
      emit(D, "badges", {data: d});
      return d;
    }, e => emit(D, "error", Object.assign({action: "badges"}, e))));
  }
  return Promise.all(out);
}

async function refresh(t) {
  const list = t ? [comp(t)].filter(Boolean) : comps;
  return Promise.all(list.map(async c => {
    if (!(await fetchList(c, 1))) return null;
    if (c.shown === "default") draw(c);
    if (c.qa) await questions(c);
    return c.data;
  }));
}

async function filter(c, patch) {
  Object.assign(c.q, patch);
  try { if (!(await fetchList(c, 1))) return; } catch (e) { return emit(c.el, "error", Object.assign({action: "filter"}, e)); }
  if (c.shown !== "default") return paint(c);
  relist(c);
  const el = c.el, d = c.data, w = d.words, q = c.q, list = $(el, "[data-review-list]");
  let st = $(el, ".rvw-status");
  if (!st && list) {
    list.insertAdjacentHTML("beforebegin", `<p class="rvw-status" role="status"></p>`);
    st = list.previousElementSibling;
  }
  if (st) st.innerHTML = esc(d.total ? wn(w, "review_count", d.total, d.language) : w.no_results) + (q.rating || q.verified || q.media || q.q || q.topic ? ` <button type="button" data-review-clear>${esc(w.clear_filters)}</button>` : "");
}

async function more(c) {
  let d;
  try { d = await fetchList(c, c.data.page + 1); } catch (e) { return emit(c.el, "error", Object.assign({action: "more"}, e)); }
  if (!d || c.shown !== "default") return;
  relist(c, true);
  const first = d.reviews[0] && $(c.el, `[data-review-list] > [data-review-id="${CSS.escape(d.reviews[0].id)}"] article`);
  if (first) { first.tabIndex = -1; first.focus(); }
}

function bind(c) {
  const el = c.el;
  el.addEventListener("click", e => {
    const b = e.target.closest("[data-review-filter-rating],[data-review-filter],[data-review-topic],[data-review-more],[data-review-vote],[data-review-report],[data-review-gallery-item],img[data-review-media],[data-review-write],[data-review-ask],[data-review-answer],[data-review-clear],[data-review-questions-more],[data-review-topics-more]");
    if (!b || !el.contains(b) || b.disabled) return;
    const s = b.dataset, q = c.q, rid = (b.closest("[data-review-id]") || {dataset: {}}).dataset.reviewId;
    if (s.reviewFilterRating) filter(c, {rating: q.rating === s.reviewFilterRating ? "" : s.reviewFilterRating});
    else if (s.reviewFilter) filter(c, {[s.reviewFilter]: q[s.reviewFilter] ? "" : "1"});
    else if (s.reviewTopic) filter(c, {topic: q.topic === s.reviewTopic ? "" : s.reviewTopic});
    else if ("reviewClear" in s) {
      for (const i of $$(el, "[data-review-search]")) i.value = "";
      filter(c, {rating: "", verified: "", media: "", q: "", topic: ""});
    } else if ("reviewMore" in s) PH.matches && $(el, "[data-review-list]>li:not(.rvw-on)") ? cap(c, 1) : more(c);
    else if ("reviewTopicsMore" in s) { b.parentNode.classList.add("rvw-open"); b.remove(); }
    else if (s.reviewVote) vote(c, rid, (store.get("votes") || {})[rid] === s.reviewVote ? "none" : s.reviewVote).catch(() => {});
    else if ("reviewReport" in s) report(c, rid);
    else if (s.reviewGalleryItem) lightbox(c, c.data.gallery, c.data.gallery.findIndex(g => g.id === s.reviewGalleryItem));
    else if (s.reviewMedia) {
      const r = c.rev.find(x => x.id === rid);
      if (r) lightbox(c, r.media.map(m => Object.assign({author: r.anonymous ? "" : r.author, review_id: r.id}, m)), r.media.findIndex(m => m.id === s.reviewMedia));
    } else if ("reviewWrite" in s) openForm({el}).catch(e => emit(el, "error", Object.assign({action: "form"}, e)));
    else if ("reviewAsk" in s) ask(c);
    else if ("reviewAnswer" in s) answer(c, b.closest("[data-review-question]").dataset.reviewQuestion);
    else if ("reviewQuestionsMore" in s) questions(c, c.qa.page + 1, true).catch(() => {});
  });
  el.addEventListener("change", e => {
    if (e.target.matches("[data-review-sort-select]")) filter(c, {sort: e.target.value});
  });
  el.addEventListener("input", e => {
    if (!e.target.matches("[data-review-search]")) return;
    clearTimeout(c.tm);
    c.tm = setTimeout(() => filter(c, {q: e.target.value.trim()}), 400);
  });
  el.addEventListener("keydown", e => {
    if (e.key !== "Enter" || !e.target.matches("[data-review-search]")) return;
    clearTimeout(c.tm);
    filter(c, {q: e.target.value.trim()});
  });
}

// countView sends a component's view once the page is shown (not prerendered, not hidden).
function countView(c) {
  const go = () => {
    if (c.viewed || D.prerendering || D.visibilityState === "hidden") return;
    c.viewed = 1;
    D.removeEventListener("prerenderingchange", go);
    D.removeEventListener("visibilitychange", go);
    const v = {product: c.product, scope: c.scope, shown: c.shown, style: c.style || "", theme: c.theme || "",
      width: Math.round(c.el.getBoundingClientRect().width)};
    const u = BASE + "/v1/views?key=" + encodeURIComponent(c.key), body = JSON.stringify(v);
    if (!(navigator.sendBeacon && navigator.sendBeacon(u, body))) fetch(u, {method: "POST", body, keepalive: true, credentials: "omit"}).catch(() => {});
    emit(c.el, "view", v);
  };
  D.addEventListener("prerenderingchange", go);
  D.addEventListener("visibilitychange", go);
  go();
}

// ---- votes, reports, lightbox ----------------------------------------------
async function vote(c, id, v) {
  let r;
  try {
    r = await api(c.key, "POST", `/v1/reviews/${encodeURIComponent(id)}/helpful`, {body: {vote: v, visitor_key: visitor()}});
  } catch (e) { emit(c.el, "error", Object.assign({action: "vote"}, e)); throw e; }
  const votes = store.get("votes") || {};
  delete votes[id];
  if (r.vote) votes[id] = r.vote;
  const keys = Object.keys(votes);
  if (keys.length > 300) delete votes[keys[0]];
  store.set("votes", votes);
  for (const item of $$(c.el, `[data-review-id="${CSS.escape(id)}"]`)) {
    for (const [k, n] of [["up", r.helpful_count], ["down", r.unhelpful_count]]) {
      const s = $(item, `[data-review-count="${k}"]`);
      if (s) s.textContent = n;
    }
  }
  paint(c);
  emit(c.el, "vote", Object.assign({review_id: id}, r));
  return r;
}

// dialog opens a native modal <dialog>: focus kept inside and given back.
function dialog(c, d, title, body) {
  ensureCSS();
  const id = "rvw-d" + ++seq, dl = D.createElement("dialog"), back = D.activeElement;
  dl.className = "rvw rvw-dialog rvw-theme-" + (c && c.theme || d.theme || "warm");
  dl.lang = d.language;
  dl.setAttribute("aria-labelledby", id);
  dl.innerHTML = `<div class="rvw-dialog-head"><h2 id="${id}">${esc(title)}</h2><button type="button" class="rvw-close" data-close aria-label="${esc(d.words.close)}">×</button></div><div class="rvw-dialog-body">${body}</div>`;
  dl.urls = [];
  dl.addEventListener("click", e => { if (e.target === dl || e.target.closest("[data-close]")) dl.close(); });
  dl.addEventListener("close", () => {
    dl.remove();
    dl.urls.forEach(u => URL.revokeObjectURL(u));
    if (back && back.isConnected && back.focus) back.focus();
  });
  D.body.append(dl);
  dl.showModal();
  const first = $(dl, ".rvw-dialog-body :is(input,textarea,select,button)");
  if (first) first.focus();
  return dl;
}

// submitting runs fn on the dialog's form submit, showing a refusal in .rvw-msg.
function submitting(dl, w, fn) {
  dl.addEventListener("submit", async e => {
    e.preventDefault();
    const f = e.target, btn = $(f, "[type=submit]"), msg = $(f, ".rvw-msg");
    if (btn.disabled) return;
    btn.disabled = true;
    msg.textContent = "";
    try { await fn(f, msg); } catch (x) { msg.textContent = errText(w, x); } finally { btn.disabled = false; }
  });
}

function done(dl, w, text) {
  $(dl, ".rvw-dialog-body").innerHTML = `<p class="rvw-done" role="status" tabindex="-1">${esc(text)}</p><button type="button" class="rvw-primary" data-close>${esc(w.close)}</button>`;
  $(dl, ".rvw-done").focus();
}

function errText(w, e, name) {
  const [code, n] = String(e && e.detail || "").split(":").map(s => s.trim());
  if (e && e.status === 429) return w.too_many_attempts;
  if (/^(not_eligible|not_a_buyer|rating_required|aspect_required)$/.test(code)) return w[code];
  if (code === "too_large") return wd(w, "file_too_large", {name, n});
  if (code === "video_too_long") return wd(w, "file_too_long", {name, n});
  if (code === "too_many_items") return wd(w, "too_many_files", {n});
  if (e && e.error === "token_refused") return w.token_refused;
  if (name) return wd(w, /^(type_not_allowed|image_|video_|processing)/.test(code) ? "file_type" : "file_failed", {name});
  return w.error;
}

function report(c, id) {
  const d = c.data, w = d.words;
  const dl = dialog(c, d, w.report_title, `<form><fieldset class="rvw-field"><legend>${esc(w.report_reason)}</legend>${d.report_reasons.map(r => `<label class="rvw-check"><input type="radio" name="reason" value="${esc(r.code)}" required> ${esc(r.label)}</label>`).join("")}</fieldset><label class="rvw-field">${esc(w.report_note)} <span class="rvw-opt">(${esc(w.optional)})</span><textarea name="note" rows="3" maxlength="${d.limits.report_note_length}"></textarea></label><p class="rvw-msg" role="alert"></p><button type="submit" class="rvw-primary">${esc(w.report_send)}</button></form>`);
  submitting(dl, w, async f => {
    const r = await api(c.key, "POST", `/v1/reviews/${encodeURIComponent(id)}/report`, {body: {reason: f.reason.value, note: f.note.value.trim(), visitor_key: visitor()}});
    done(dl, w, w.report_thanks);
    emit(c.el, "report", {review_id: id, id: r.id});
  });
}

function lightbox(c, items, i) {
  if (!items || !items.length) return;
  const d = c.data, w = d.words, many = items.length > 1;
  const dl = dialog(c, d, w.gallery, `<figure class="rvw-lb"><div class="rvw-lb-media"></div><figcaption class="rvw-lb-cap"></figcaption></figure>${many ? `<div class="rvw-lb-nav"><button type="button" data-step="-1">${esc(w.previous)}</button> <span class="rvw-lb-count" aria-live="polite"></span> <button type="button" data-step="1">${esc(w.next)}</button></div>` : ""}`);
  const show = k => {
    i = (k + items.length) % items.length;
    const m = items[i];
    $(dl, ".rvw-lb-media").innerHTML = m.kind === "video" ? `<video controls src="${esc(m.url)}"${m.poster_url ? ` poster="${esc(m.poster_url)}"` : ""}></video>` : `<img src="${esc(m.url)}"${m.srcset ? ` srcset="${esc(m.srcset)}" sizes="(max-width: 900px) 100vw, 900px"` : ""} alt="${esc(m.alt_text || m.author || "")}">`;
    $(dl, "figcaption").innerHTML = "";
    lbReview(c, dl, m.review_id);
    if (many) $(dl, ".rvw-lb-count").textContent = wd(w, "media_of", {n: i + 1, m: items.length});
  };
  dl.addEventListener("click", e => { const s = e.target.closest("[data-step]"); if (s) show(i + +s.dataset.step); });
  dl.addEventListener("click", e => { const a = dl.art; if (e.target.closest("[data-read]")) dl.addEventListener("close", () => { a.parentNode.classList.add("rvw-on"); a.tabIndex = -1; a.focus(); }), dl.close(); });
  dl.addEventListener("keydown", e => { if (e.key === "ArrowLeft" || e.key === "ArrowRight") show(i + (e.key === "ArrowLeft" ? -1 : 1)); });
  show(Math.max(0, i));
}

// lbReview: under a photo, its review and a way to it on the page.
async function lbReview(c, dl, id) {
  const w = c.data.words, L = c.data.language;
  let r = c.rev.find(x => x.id === (dl.rid = id));
  if (!r && id) r = (await (c.mr = c.mr || api(c.key, "GET", "/v1/reviews/list", {query: {product: c.product, scope: c.scope, lang: c.lang, media: 1, page_size: 50, via: "script"}}).catch(() => ({reviews: []})))).reviews.find(x => x.id === id);
  if (!r || dl.rid !== id) return;
  dl.art = $(c.el, `[data-review-list]>[data-review-id="${CSS.escape(id)}"] article`);
  $(dl, "figcaption").innerHTML = `${stars(r.rating, wd(w, "stars_label", {n: r.rating}))} <b>${esc(r.title)}</b><span class="rvw-lb-text">${esc(r.body)}</span><span class="rvw-meta">${esc(r.anonymous ? w.anonymous : r.author)} · ${time(r.published_at, L)}</span>${dl.art ? `<button type="button" class="rvw-link" data-read>${PW(L)[0]}</button>` : ""}`;
}

const PW = L => (L === "tr" ? "Değerlendirmeyi oku|Şimdi yayında.|Siparişinizdeki diğer ürünler:" : "Read the review|It is live now.|Also in your order:").split("|");

// cap: phones show the rvw-on reviews, 3 a step.
const PH = matchMedia("(max-width:480px)");
function cap(c, step) {
  const el = c.el, li = [...$$(el, "[data-review-list]>li")], pg = $(el, ".rvw-pager"), u = $(el, ".rvw-topics ul"), k = c.n;
  c.n = step ? (k | 0) + 3 : 3;
  li.forEach((l, i) => l.classList.toggle("rvw-on", i < c.n));
  if (!pg && li[c.n] && PH.matches) li[0].parentNode.insertAdjacentHTML("afterend", pagerHTML(c).replace('"r', '"rvw-ph r'));
  else if (pg && pg.matches(".rvw-ph") && !li[c.n]) pg.remove();
  if (u && PH.matches && !u.nextElementSibling && u.scrollHeight > u.clientHeight + 2) u.insertAdjacentHTML("afterend", `<button type="button" class="rvw-link" data-review-topics-more>${esc(c.data.words.show_more)}</button>`);
  const a = step === 1 && $(li[k], "article");
  if (a) a.tabIndex = -1, a.focus();
}

// ---- questions and answers -------------------------------------------------
async function questions(c, page, more) {
  const d = await api(c.key, "GET", "/v1/questions", {query: {product: c.product, scope: c.scope, lang: c.lang, page: page || 1, page_size: 5}});
  c.qa = d;
  if (c.shown === "default") drawQA(c, d, more);
  emit(c.el, "questions", {product: c.product, data: d});
  return d;
}

function drawQA(c, d, more) {
  const w = c.data.words, L = c.data.language;
  let sec = $(c.el, ".rvw-questions");
  if (!sec) {
    ($(c.el, ".rvw-main") || c.el).insertAdjacentHTML("beforeend", `<section class="rvw-questions" data-review-questions aria-labelledby="${c.id}-qa"><h3 id="${c.id}-qa">${esc(w.questions)}</h3><p><button type="button" class="rvw-ask" data-review-ask>${esc(w.ask_question)}</button></p><ol class="rvw-qa-list"></ol></section>`);
    sec = $(c.el, ".rvw-questions");
  }
  const ol = $(sec, ".rvw-qa-list"), html = d.questions.map(q => `<li class="rvw-question" data-review-question="${esc(q.id)}"><p class="rvw-q-body">${esc(q.body)}</p><p class="rvw-meta">${esc(q.author || w.anonymous)} ${time(q.published_at, L, c.data.time_zone)}</p>${q.answers.length ? `<ul class="rvw-answers">${q.answers.map(a => `<li class="rvw-answer rvw-answer--${esc(a.kind)}"><p class="rvw-meta"><span class="rvw-author">${esc(a.author || w.anonymous)}</span> <span class="rvw-badge">${esc(a.kind === "brand" ? w.brand_answer : w.verified_buyer)}</span> ${time(a.published_at, L, c.data.time_zone)}</p><p class="rvw-a-body">${esc(a.body)}</p></li>`).join("")}</ul>` : ""}<button type="button" class="rvw-link" data-review-answer>${esc(w.answer)}</button></li>`).join("");
  if (more) ol.insertAdjacentHTML("beforeend", html);
  else ol.innerHTML = html || `<li class="rvw-empty">${esc(w.no_questions)}</li>`;
  const m = $(sec, "[data-review-questions-more]");
  if (m) m.parentNode.remove();
  if (d.pages > d.page) ol.insertAdjacentHTML("afterend", `<p><button type="button" data-review-questions-more>${esc(w.show_more)}</button></p>`);
}

const nameFields = (w, n, v) => `<label class="rvw-field">${esc(w.your_name)} <span class="rvw-opt">(${esc(w.optional)})</span><input name="author" maxlength="${n || 120}" autocomplete="name" value="${esc(v && v.author_name)}"></label><label class="rvw-check"><input type="checkbox" name="hide"${v && v.hide_name ? " checked" : ""}> ${esc(w.hide_name)}</label>`;
const orderFields = (w, L) => `<label class="rvw-field">${esc(w.order_number)}<input name="order" required maxlength="${L.order_reference_length || 128}" autocomplete="off"></label><label class="rvw-field">${esc(w.email)}<input type="email" name="email" required maxlength="${L.email_length || 254}" autocomplete="email"></label>`;
const sendRow = (t) => `<p class="rvw-msg" role="alert"></p><button type="submit" class="rvw-primary">${esc(t)}</button>`;

function ask(c, text) {
  if (!(c = c || comps[0]) || !c.data) return null;
  const d = c.data, w = d.words, QL = c.qa && c.qa.limits || {};
  const dl = dialog(c, d, w.ask_question, `<form><label class="rvw-field">${esc(w.your_question)}<textarea name="body" rows="4" required maxlength="${QL.question_length || 1000}">${esc(text)}</textarea></label>${c.asker ? "" : nameFields(w, QL.name_length) + `<label class="rvw-field">${esc(w.question_email)}<input type="email" name="email" maxlength="${QL.email_length || 254}" autocomplete="email"></label>`}${sendRow(w.report_send)}</form>`);
  submitting(dl, w, async f => {
    const body = {product: c.product, scope: c.scope, body: f.body.value.trim(), language: d.language};
    if (c.asker) body.asker = c.asker;
    else Object.assign(body, {name: f.author.value.trim(), email: f.email.value.trim(), hide_name: f.hide.checked});
    let r;
    try { r = await api(c.key, "POST", "/v1/questions", {body}); } catch (e) {
      // An expired or foreign asker token: the anonymous form instead.
      if (!c.asker || !/^asker_/.test(e.detail)) throw e;
      c.asker = "";
      dl.close();
      return ask(c, body.body);
    }
    done(dl, w, w.question_sent + (r.state === "published" ? "" : " " + w.thanks_pending));
    emit(c.el, "question", r);
    if (r.state === "published") questions(c).catch(() => {});
  });
  return dl;
}

function answer(c, qid) {
  const d = c.data, w = d.words, QL = c.qa && c.qa.limits || {}, need = !S.token;
  const dl = dialog(c, d, w.answer, `<form>${need ? `<p>${esc(w.answer_intro)}</p>` + orderFields(w, d.limits) : ""}<label class="rvw-field">${esc(w.your_answer)}<textarea name="body" rows="4" required maxlength="${QL.answer_length || 2000}"></textarea></label>${nameFields(w, QL.name_length)}${sendRow(w.report_send)}</form>`);
  submitting(dl, w, async f => {
    if (!S.token) S.token = (await api(c.key, "POST", "/v1/eligibility", {body: {order: f.order.value.trim(), email: f.email.value.trim(), language: d.language}})).token;
    let r;
    try {
      r = await api(c.key, "POST", `/v1/questions/${encodeURIComponent(qid)}/answers`, {token: S.token,
        body: {body: f.body.value.trim(), name: f.author.value.trim(), hide_name: f.hide.checked, language: d.language}});
    } catch (e) {
      if (e.error === "token_refused" && e.detail !== "not_a_buyer") S.token = ""; // the next answer asks for the order again
      throw e;
    }
    done(dl, w, w.answer_sent + (r.state === "published" ? "" : " " + w.thanks_pending));
    emit(c.el, "answer", Object.assign({question_id: qid}, r));
    if (r.state === "published") questions(c).catch(() => {});
  });
}

// ---- writing flow ----------------------------------------------------------
// listFor gives a list answer (words, limits) for the form.
async function listFor(c, lang, product) {
  if (c && c.data && (!lang || c.data.language === lang)) return c.data;
  const p = product || c && c.product;
  if (!p) throw {status: 0, error: "no_product", detail: ""};
  return api(c ? c.key : CFG.key, "GET", "/v1/reviews/list", {query: {product: p, lang, page_size: 1, via: "script"}});
}

async function openForm(o) {
  o = o || {};
  const c = comp(o.el || o.product), key = c ? c.key : CFG.key;
  if (o.token) return writeFlow(c, key, o.token);
  const d = await listFor(c), w = d.words;
  const dl = dialog(c, d, w.write_review, `<form><p>${esc(w.order_check_intro)}</p>${orderFields(w, d.limits)}${sendRow(w.continue)}</form>`);
  submitting(dl, w, async f => {
    const b = {order: f.order.value.trim(), email: f.email.value.trim(), language: d.language}, r = await api(key, "POST", "/v1/eligibility", {body: b});
    S.token = r.token;
    await writeFlow(c, key, r.token, dl, b);
  });
  return dl;
}

async function writeFlow(c, key, token, dl, re) {
  let t;
  try {
    t = await api(key, "POST", "/v1/eligibility/token", {body: {token, language: c && c.lang || ""}});
  } catch (e) {
    if (dl) throw e;
    const d = await listFor(c);
    dialog(c, d, d.words.write_review, `<p class="rvw-msg" role="alert">${esc(errText(d.words, e))}</p>`);
    return null;
  }
  S.token = token;
  const d = await listFor(c, t.language, t.products[0] && t.products[0].variant_key), w = d.words, L = t.limits || d.limits;
  const rv = t.mode === "revise" && t.review || {};
  let prods = t.products;
  if (rv.line_reference) prods = [prods.find(p => p.line_reference === rv.line_reference) || {line_reference: rv.line_reference, aspects: []}];
  const F = {c, key, token, mode: t.mode, d, w, L, ps: [], t, re};
  let html = `<form class="rvw-form" novalidate><p>${esc(t.mode === "feedback" ? w.feedback_intro : w.form_intro)}</p>${prods.length > 1 ? `<p class="rvw-hint">${esc(w.products_hint)}</p>` : ""}`;
  for (const p of prods) {
    const f = "rvw-f" + ++seq, aspects = p.aspects || [];
    F.ps.push({line: p.line_reference, f, aspects, items: (rv.media || []).map((m, i) => ({id: m.id, kind: m.kind, kept: 1, name: (m.kind === "video" ? w.video : w.photo) + " " + (i + 1)}))});
    html += `<fieldset class="rvw-form-product" data-line="${esc(p.line_reference)}"><legend>${esc(p.title || p.variant_key || "")}</legend><div class="rvw-field"><span class="rvw-label" id="${f}-l">${esc(w.your_rating)}</span><span class="rvw-rate" role="radiogroup" aria-labelledby="${f}-l">${[1, 2, 3, 4, 5].map(v => `<input type="radio" id="${f}-${v}" name="${f}-r" value="${v}"${rv.rating === v ? " checked" : ""}><label for="${f}-${v}" title="${v}"><span class="rvw-vh">${esc(wd(w, "stars_label", {n: v}))}</span></label>`).join("")}</span></div>`;
    for (const a of aspects) {
      const steps = a.steps && a.steps.length ? a.steps : Array.from({length: a.scale}, (_, k) => String(k + 1));
      html += `<fieldset class="rvw-field rvw-steps"><legend>${esc(a.label)}${a.required ? "" : ` <span class="rvw-opt">(${esc(w.optional)})</span>`}</legend>${steps.map((s, k) => `<label><input type="radio" name="${f}-a-${esc(a.key)}" value="${k + 1}"${rv.aspects && rv.aspects[a.key] === k + 1 ? " checked" : ""}> ${esc(s)}</label>`).join("")}</fieldset>`;
    }
    html += `<label class="rvw-field">${esc(w.review_title)} <span class="rvw-opt">(${esc(w.optional)})</span><input name="${f}-t" maxlength="${L.title_length}" value="${esc(rv.title)}"></label><label class="rvw-field">${esc(w.review_body)}<textarea name="${f}-b" rows="5" maxlength="${L.body_length}">${esc(rv.body)}</textarea></label><div class="rvw-field"><label class="rvw-label" for="${f}-m">${esc(w.add_media)} <span class="rvw-opt">(${esc(w.optional)})</span></label><span class="rvw-drop"><input type="file" id="${f}-m" data-line="${esc(p.line_reference)}" multiple accept="image/*,video/mp4,video/quicktime" aria-describedby="${f}-h"></span><p class="rvw-hint" id="${f}-h">${esc(wd(w, "media_hint", {n: L.media_count}))}</p><ul class="rvw-files"></ul></div></fieldset>`;
  }
  html += nameFields(w, L.name_length, rv) + sendRow(w.submit) + "</form>";
  const title = t.mode === "revise" ? w.revise_title : t.mode === "feedback" ? w.feedback_title : w.write_review;
  if (dl) {
    $(dl, "h2").textContent = title;
    $(dl, ".rvw-dialog-body").innerHTML = html;
    $(dl, "input,textarea").focus();
  } else dl = dialog(c, d, title, html);
  F.dl = dl;
  F.msg = s => { $(dl, ".rvw-msg").textContent = s; };
  F.ps.forEach((p, i) => {
    p.ul = $$(dl, ".rvw-files")[i];
    p.items.forEach(it => fileItem(F, p, it));
  });
  dl.addEventListener("change", e => {
    const inp = e.target;
    if (inp.type !== "file") return;
    addFiles(F, F.ps.find(p => p.line === inp.dataset.line), Array.from(inp.files));
    inp.value = "";
  });
  dl.addEventListener("click", e => {
    const b = e.target.closest("[data-remove]");
    if (!b) return;
    for (const p of F.ps) p.items = p.items.filter(it => it.li !== b.parentNode || (it.li.remove(), false));
    $(dl, "input[type=file]").focus();
  });
  submitting(dl, w, f => send(F, f));
  emit(c ? c.el : D, "form-open", {mode: t.mode, products: prods.length});
  return dl;
}

function fileItem(F, p, it) {
  it.li = D.createElement("li");
  p.ul.append(it.li);
  it.li.innerHTML = `<span class="rvw-file-name">${esc(it.name)}</span> ${it.id || it.kept ? "" : `<span class="rvw-hint">${esc(F.w.uploading)}</span>`}`;
}

function fileDone(F, it, blob) {
  let h = "", n = blob.size;
  if (it.kind === "image") {
    const u = URL.createObjectURL(blob);
    F.dl.urls.push(u);
    h = `<img src="${u}" alt="" width="48" height="48">`;
  }
  it.li.innerHTML = h + `<span class="rvw-file-name">${esc(it.name)}</span> <span class="rvw-hint">${n < 1e6 ? Math.ceil(n / 1e3) + " kB" : num(n / 1e6, F.d.language) + " MB"}</span> <button type="button" data-remove aria-label="${esc(F.w.remove + ": " + it.name)}">×</button>`;
}

function addFiles(F, p, files) {
  for (const file of files) {
    if (p.items.length >= F.L.media_count) { F.msg(wd(F.w, "too_many_files", {n: F.L.media_count})); break; }
    const it = {name: file.name, kind: /^video\//.test(file.type) ? "video" : "image"};
    p.items.push(it);
    fileItem(F, p, it);
    it.job = upload(F, p, it, file).catch(e => {
      p.items = p.items.filter(x => x !== it);
      it.li.remove();
      F.msg(errText(F.w, e, file.name));
    });
  }
}

// upload sends one file: photos as JPEG of at most 2560 px, videos as they are.
async function upload(F, p, it, file) {
  const L = F.L, mb = n => Math.round(n / 1048576);
  let blob = file, name = file.name;
  if (it.kind === "image") {
    try { blob = await jpeg(file); name = name.replace(/\.[^.]*$/, "") + ".jpg"; } catch (e) {
      if (!/^image\/(jpeg|png|webp)$/.test(file.type)) throw {detail: "type_not_allowed"};
    }
    if (blob.size > L.image_bytes) throw {detail: "too_large: " + mb(L.image_bytes)};
  } else {
    if (!/^video\/(mp4|quicktime)$/.test(file.type)) throw {detail: "type_not_allowed"};
    if (file.size > L.video_bytes) throw {detail: "too_large: " + mb(L.video_bytes)};
    if (await seconds(file) > L.video_seconds) throw {detail: "video_too_long: " + L.video_seconds};
  }
  const fd = new FormData();
  fd.append("token", F.token);
  fd.append("line_reference", p.line);
  fd.append("file", blob, name);
  it.id = (await api(F.key, "POST", "/v1/media", {form: fd})).id;
  if (it.li.isConnected) fileDone(F, it, blob);
}

async function jpeg(file) {
  const bmp = await createImageBitmap(file, {imageOrientation: "from-image"});
  const k = Math.min(1, 2560 / Math.max(bmp.width, bmp.height)), cv = D.createElement("canvas"), g = cv.getContext("2d");
  cv.width = Math.round(bmp.width * k);
  cv.height = Math.round(bmp.height * k);
  g.fillStyle = "#fff";
  g.fillRect(0, 0, cv.width, cv.height);
  g.drawImage(bmp, 0, 0, cv.width, cv.height);
  bmp.close();
  return new Promise((ok, no) => cv.toBlob(b => b ? ok(b) : no(new Error("encode")), "image/jpeg", 0.88));
}

// seconds reads a video's length (0 when the browser cannot: the server decides).
function seconds(file) {
  return new Promise(ok => {
    const v = D.createElement("video"), u = URL.createObjectURL(file), end = s => { URL.revokeObjectURL(u); ok(s || 0); };
    v.preload = "metadata";
    v.onloadedmetadata = () => end(v.duration);
    v.onerror = () => end(0);
    v.src = u;
  });
}

async function send(F, f) {
  await Promise.all(F.ps.flatMap(p => p.items.map(it => it.job)));
  const rows = [], val = n => f.elements[n] ? f.elements[n].value.trim() : "";
  for (const p of F.ps) {
    const rating = +val(p.f + "-r");
    if (!rating) continue;
    const aspects = {};
    for (const a of p.aspects) {
      const v = +val(p.f + "-a-" + a.key);
      if (v) aspects[a.key] = v;
      else if (a.required) throw {detail: "aspect_required"};
    }
    const row = {line_reference: p.line, rating, title: val(p.f + "-t"), body: val(p.f + "-b"), aspects,
      media: p.items.filter(it => it.id && !it.kept).map(it => it.id), hide_name: f.hide.checked};
    if (F.mode === "revise" || val("author")) row.author_name = val("author");
    if (F.mode === "revise") row.kept_media = p.items.filter(it => it.kept).map(it => it.id);
    rows.push(row);
  }
  if (!rows.length) throw {detail: "rating_required"};
  const w = F.w;
  F.msg(w.sending);
  let out;
  if (F.mode === "revise") {
    const r = Object.assign(rows[0], {token: F.token, language: F.d.language});
    delete r.line_reference;
    out = [await api(F.key, "POST", "/v1/reviews/revise", {body: r})];
  } else {
    out = (await api(F.key, "POST", "/v1/reviews", {body: {token: F.token, language: F.d.language, reviews: rows}})).reviews;
  }
  const live = out.some(r => r.state === "published");
  done(F.dl, w, w.thanks + " " + (out.every(r => r.state === "published") ? PW(F.d.language)[1] : w.thanks_pending));
  thanks(F, out);
  emit(F.c ? F.c.el : D, "submitted", {mode: F.mode, reviews: out});
  if (live) refresh().catch(() => {});
}

// thanks offers the order's other products (a spent order check is made again).
function thanks(F, out) {
  const rest = F.mode === "revise" ? [] : F.t.products.filter(p => !out.some(r => r.line_reference === p.line_reference));
  if (!rest[0]) return;
  $(F.dl, ".rvw-done").insertAdjacentHTML("afterend", `<p>${PW(F.d.language)[2]}</p><ul class="rvw-next">${rest.map(p => `<li>${esc(p.title || p.variant_key)}</li>`).join("")}</ul><button type="button" class="rvw-primary" data-again>${esc(F.w.write_review)}</button> `);
  F.dl.addEventListener("click", e => {
    if (e.target.closest("[data-again]")) F.dl.close(), (F.re ? api(F.key, "POST", "/v1/eligibility", {body: F.re}) : Promise.resolve(F)).then(r => writeFlow(F.c, F.key, r.token, 0, F.re)).catch(x => emit(D, "error", Object.assign({action: "form"}, x)));
  });
}

// ---- the channel's reviews: carousel (data-review-carousel), store page (data-review-all)
// The markup comes ready from GET /v1/ssr/carousel and /v1/ssr/all, or was put in
// the container by the store's server; the script steps and refetches it.
function featHTML(r) { return r.featured_label ? `<p class="rvw-featured" data-review-featured>${esc(r.featured_label)}</p>` : ""; }
async function chan(el, kind, q) {
  const a = el.dataset;
  if (!q && el.firstElementChild) return;
  try {
    const d = await api(a.reviewKey || CFG.key, "GET", "/v1/ssr/" + kind, {query: Object.assign({lang: a.reviewLang || CFG.lang, theme: a.reviewTheme, page_size: a.reviewPageSize, product_url: a.reviewProductLink}, q)});
    el.innerHTML = d.html;
    emit(el, kind, {data: d});
  } catch (e) { emit(el, "error", Object.assign({action: kind}, e)); }
}
function allQ(el, p, sel) {
  const a = $(el, "section").dataset;
  chan(el, "all", Object.assign({page: a.reviewPage, rating: a.reviewRating, verified: a.reviewVerified, media: a.reviewMedia}, p)).then(() => { const f = $(el, sel); if (f) f.focus(); });
}
function channels(root) {
  for (const kind of ["carousel", "all"]) for (const el of $$(root || D, `[data-review-${kind}]`)) {
    if (byEl.has(el)) continue;
    byEl.set(el, 0);
    el.addEventListener("click", e => {
      const b = e.target.closest("button"), d = b ? b.dataset : {}, t = $(el, "[data-review-carousel-track]"), f = d.reviewAllFilter;
      if (d.reviewCarouselStep && t) t.scrollBy(d.reviewCarouselStep * t.clientWidth * .8, 0);
      else if (d.reviewAllPage) allQ(el, {page: d.reviewAllPage}, "h2");
      else if (f) allQ(el, {[f]: b.getAttribute("aria-pressed") === "true" ? "" : "1", page: ""}, `[data-review-all-filter="${f}"]`);
    });
    el.addEventListener("change", e => { if (e.target.matches("[data-review-all-rating]")) allQ(el, {rating: e.target.value, page: ""}, "[data-review-all-rating]"); });
    chan(el, kind);
  }
}

// ---- start -----------------------------------------------------------------
function urlToken() {
  const h = /(?:^#|&)review_token=([^&]+)/.exec(location.hash), t = h ? decodeURIComponent(h[1]) : new URLSearchParams(location.search).get("review_token");
  if (!t) return "";
  try {
    // The token leaves the address bar (and later Referer headers and bookmarks).
    const u = new URL(location.href);
    u.searchParams.delete("review_token");
    const h = u.hash.replace(/(^#|&)review_token=[^&]*/, "$1").replace(/^#&/, "#");
    u.hash = h === "#" ? "" : h;
    history.replaceState(history.state, "", u.href.replace(/#$/, ""));
  } catch (e) { /* the address stays */ }
  return t;
}

W.Reviewd = {
  version: 3,
  init, render, refresh,
  get: t => { const c = comp(t); return c && c.data || null; },
  load: async (t, params) => {
    const c = comp(t), p = params || {};
    for (const k of ["sort", "rating", "verified", "media", "q", "topic"]) if (k in p) c.q[k] = p[k] === true ? "1" : String(p[k] || "");
    const d = await fetchList(c, p.page || 1);
    if (d && c.shown === "default") relist(c, d.page > 1);
    return d;
  },
  questions: (t, page) => questions(comp(t), page),
  vote: (id, v, t) => vote(comp(t || D.querySelector(`[data-review-id="${CSS.escape(id)}"]`)), id, v),
  openForm,
  openReport: (id, t) => report(comp(t || D.querySelector(`[data-review-id="${CSS.escape(id)}"]`)), id),
  ask: t => ask(comp(t)),
  badges,
  channels,
};

async function boot() {
  const t = urlToken(), ready = init(), form = tok => openForm({token: tok}).catch(e => emit(D, "error", Object.assign({action: "form"}, e)));
  emit(D, "ready", {version: 3});
  // A link to #review_token=… on the page itself (a signed-in customer's) opens the form too.
  W.addEventListener("hashchange", () => { const h = urlToken(); if (h) form(h); });
  await ready;
  if (t) form(t);
}
if (CFG.auto !== "false") {
  if (D.readyState === "loading") D.addEventListener("DOMContentLoaded", boot);
  else boot();
}
})();
