/* The pretend store's own review markup, fed by the page script (headless use):
   the store draws the list from the reviews:loaded event; the script keeps the
   helpful votes (data-review-vote), the writing flow (data-review-write) and view
   counting. Loaded before the page script, so the first event is not missed. */
document.addEventListener("reviews:loaded", (e) => {
  const box = e.target, d = e.detail.data, w = d.words;
  const sum = box.querySelector("[data-demo-summary]"), list = box.querySelector("[data-demo-list]");
  if (!sum || !list) return;
  sum.textContent = d.aggregate.count
    ? d.aggregate.average.toFixed(1) + " / 5 · " + w.review_count.replace("{n}", d.aggregate.count)
    : w.no_reviews;
  list.replaceChildren(...d.reviews.map((r) => {
    const el = (tag, cls, text) => {
      const n = document.createElement(tag);
      if (cls) n.className = cls;
      if (text != null) n.textContent = text;
      return n;
    };
    const li = el("li");
    li.dataset.reviewId = r.id;
    const vote = el("button", "", w.helpful + " ");
    vote.type = "button";
    vote.dataset.reviewVote = "up";
    vote.setAttribute("aria-pressed", "false");
    const n = el("span", "", String(r.helpful_count));
    n.dataset.reviewCount = "up";
    vote.append(n);
    li.append(el("h3", "", r.rating + " / 5 · " + (r.title || "")), el("p", "hl-meta", r.anonymous ? w.anonymous : r.author),
      el("p", "", r.body), vote);
    return li;
  }));
});
