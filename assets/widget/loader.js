/* reviewd loader (page component contract 3, docs/page-contract.md). This address
   keeps a short cache life; it loads the page script of the running version from its
   content-hash address, passing on this element's data-* attributes and nonce. */
(function (d) {
  var s = d.currentScript, n, i, a;
  if (!s || (window.Reviewd && window.Reviewd.version)) return;
  n = d.createElement("script");
  n.src = new URL("../assets/{{HASH}}/reviews.js", s.src).href;
  n.async = true;
  if (s.nonce) n.nonce = s.nonce;
  for (i = 0; i < s.attributes.length; i++) {
    a = s.attributes[i];
    if (a.name.indexOf("data-") === 0) n.setAttribute(a.name, a.value);
  }
  (d.head || d.documentElement).appendChild(n);
})(document);
