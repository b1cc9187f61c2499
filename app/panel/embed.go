package panel

import (
	"html"
	"strings"

	"reviewd/app/core/access"
)

// embedPlaceholder stands for the product code in a snippet not made for one product.
const embedPlaceholder = "YOUR-PRODUCT-CODE"

// embedSnippet is the markup a store puts on a product page to show its reviews
// (docs/page-contract.md, "Putting it on a page"): the container with the
// data-review-* attributes the page script reads and the loader with the channel's
// site key. theme and style "" leave the channel's own look.
func embedSnippet(base, siteKey, product, theme, style string) string {
	if product == "" {
		product = embedPlaceholder
	}
	a := html.EscapeString
	var b strings.Builder
	b.WriteString(`<div data-review-product="` + a(product) + `" data-review-scope="variant"`)
	if theme != "" {
		b.WriteString(` data-review-theme="` + a(theme) + `"`)
	}
	if style != "" {
		b.WriteString(` data-review-style="` + a(style) + `"`)
	}
	b.WriteString("></div>\n")
	b.WriteString(`<script src="` + a(strings.TrimRight(base, "/")) + `/v1/widget.js" data-key="` + a(siteKey) + `" async></script>`)
	return b.String()
}

// badgeSnippet is the markup of a listing page's star badge (docs/page-contract.md,
// "Star badges on listing pages"): one element per product and the same loader.
func badgeSnippet(base, siteKey, product string) string {
	if product == "" {
		product = embedPlaceholder
	}
	a := html.EscapeString
	return `<span data-review-badge="stars" data-review-product="` + a(product) + `"></span>` + "\n" +
		`<script src="` + a(strings.TrimRight(base, "/")) + `/v1/widget.js" data-key="` + a(siteKey) + `" async></script>`
}

// channelEmbed is a channel's copyable snippet on the keys page.
type channelEmbed struct {
	Channel, Snippet string
}

// siteKeyOf is the newest site key in use of channel (its secret; public by
// nature), "" when it has none.
func siteKeyOf(keys []access.KeyRow, channel string) string {
	for _, k := range keys { // newest first
		if k.Kind == access.KindSite && k.Channel == channel && k.RevokedAt.IsZero() && k.SiteKey != "" {
			return k.SiteKey
		}
	}
	return ""
}
