package mail

import (
	"bytes"
	"fmt"
	htmlstd "html"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A brand's own invitation e-mail (docs/decisions.md, "Invitation templates"): a
// subject and an HTML body written by the brand, with placeholders reviewd fills
// when sending. The HTML is parsed and rebuilt from an allowlist when saved
// (SanitizeTemplate), so no script, event handler, form, frame or remote style
// reaches a customer; values are escaped when they are filled in (RenderBrand); the
// stop-e-mails footer is always added by reviewd.

// Placeholders of a brand template.
const (
	PlaceBrand        = "{{brand}}"
	PlaceCustomerName = "{{customer_name}}"
	PlaceProducts     = "{{products}}"
	PlaceReviewButton = "{{review_button}}" // the write-a-review button section (required)
	PlaceReviewURL    = "{{review_url}}"
	PlaceUnsubscribe  = "{{unsubscribe_url}}"
)

// Placeholders lists every placeholder a template may use.
var Placeholders = []string{PlaceBrand, PlaceCustomerName, PlaceProducts, PlaceReviewButton, PlaceReviewURL, PlaceUnsubscribe}

// Problems SanitizeTemplate reports (spec 3: invalid / <problem>).
const (
	ProblemCTA         = "cta_required"
	ProblemTracking    = "image_tracking"
	ProblemStyleImport = "style_import"
	ProblemPlaceholder = "placeholder_unknown"
)

var (
	rePlaceholder = regexp.MustCompile(`\{\{\s*[a-z_]*\s*\}\}`)
	reCSSImport   = regexp.MustCompile(`(?i)@\s*import`)
	reCSSURL      = regexp.MustCompile(`(?i)url\s*\(|image-set\s*\(|src\s*\(`)
	// A backslash can spell any of these (and url) as a CSS escape: such styles go.
	reCSSUnsafe = regexp.MustCompile(`(?i)expression\s*\(|javascript:|behavior\s*:|-moz-binding|\\`)
	reHidden    = regexp.MustCompile(`(?i)display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(\.0*)?\s*(;|$)|(^|[;\s])(max-)?(width|height)\s*:\s*[0-2](\.\d+)?\s*(px)?\s*(;|$)`)
)

// allowedTags are kept with their allowed attributes; dropTags go with their
// content; any other element is replaced by its content.
var (
	allowedTags = map[atom.Atom]bool{atom.A: true, atom.P: true, atom.Br: true, atom.Div: true, atom.Span: true,
		atom.Strong: true, atom.B: true, atom.Em: true, atom.I: true, atom.U: true, atom.H1: true, atom.H2: true,
		atom.H3: true, atom.H4: true, atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Table: true, atom.Thead: true,
		atom.Tbody: true, atom.Tr: true, atom.Td: true, atom.Th: true, atom.Img: true, atom.Hr: true,
		atom.Blockquote: true, atom.Center: true, atom.Small: true, atom.Style: true}
	dropTags = map[atom.Atom]bool{atom.Script: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
		atom.Form: true, atom.Input: true, atom.Button: true, atom.Select: true, atom.Textarea: true, atom.Link: true,
		atom.Meta: true, atom.Base: true, atom.Svg: true, atom.Math: true, atom.Noscript: true, atom.Template: true,
		atom.Frame: true, atom.Frameset: true, atom.Applet: true, atom.Audio: true, atom.Video: true, atom.Source: true,
		atom.Title: true, atom.Head: true}
	allowedAttrs = map[string]bool{"style": true, "align": true, "valign": true, "width": true, "height": true,
		"bgcolor": true, "color": true, "border": true, "cellpadding": true, "cellspacing": true, "class": true,
		"dir": true, "title": true, "alt": true, "colspan": true, "rowspan": true, "href": true, "src": true}
)

// SanitizeTemplate checks and cleans a brand's template HTML. It returns the clean
// HTML, or the first problem: style_import (an @import in a style), image_tracking
// (an image hidden or of at most 2 pixels, or a style that loads a remote
// resource), placeholder_unknown (an unknown placeholder, or any placeholder inside
// a style attribute or <style> element), cta_required (no {{review_button}} in the
// text).
func SanitizeTemplate(raw string) (string, string, error) {
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(raw), ctx)
	if err != nil {
		return "", "", fmt.Errorf("mail: parse template: %w", err)
	}
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	problem := clean(root)
	if problem != "" {
		return "", problem, nil
	}
	var b bytes.Buffer
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			return "", "", err
		}
	}
	out := b.String()
	for _, p := range rePlaceholder.FindAllString(out, -1) {
		if !knownPlaceholder(p) {
			return "", ProblemPlaceholder, nil
		}
	}
	if !strings.Contains(textOf(root), PlaceReviewButton) {
		return "", ProblemCTA, nil
	}
	return out, "", nil
}

// CheckSubject reports placeholder_unknown when a template subject names a
// placeholder that does not exist; "" when it may be saved.
func CheckSubject(subject string) string {
	for _, p := range rePlaceholder.FindAllString(subject, -1) {
		if !knownPlaceholder(p) {
			return ProblemPlaceholder
		}
	}
	return ""
}

func knownPlaceholder(p string) bool {
	for _, k := range Placeholders {
		if p == k {
			return true
		}
	}
	return false
}

// textOf is the text content of n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.DataAtom != atom.Style) {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// clean rebuilds n's children from the allowlist in place and returns the first
// problem found.
func clean(n *html.Node) string {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.CommentNode, html.DoctypeNode:
			n.RemoveChild(c)
		case html.ElementNode:
			switch {
			case dropTags[c.DataAtom] || c.DataAtom == 0 && strings.Contains(c.Data, ":"):
				n.RemoveChild(c)
			case !allowedTags[c.DataAtom]:
				if p := clean(c); p != "" {
					return p
				}
				for gc := c.FirstChild; gc != nil; {
					gnext := gc.NextSibling
					c.RemoveChild(gc)
					n.InsertBefore(gc, c)
					gc = gnext
				}
				n.RemoveChild(c) // its children, cleaned, now stand before next
			case c.DataAtom == atom.Style:
				var css string
				for gc := c.FirstChild; gc != nil; gc = gc.NextSibling {
					css += gc.Data
				}
				if p := checkCSS(css); p != "" {
					return p
				}
				if rePlaceholder.MatchString(css) {
					return ProblemPlaceholder
				}
				for gc := c.FirstChild; gc != nil; gc = c.FirstChild {
					c.RemoveChild(gc)
				}
				c.Attr = nil
				if !reCSSUnsafe.MatchString(css) {
					c.AppendChild(&html.Node{Type: html.TextNode, Data: strings.NewReplacer("<", "", ">", "").Replace(css)})
				} else {
					n.RemoveChild(c)
				}
			default:
				if p := cleanAttrs(c); p != "" {
					return p
				}
				if c.DataAtom == atom.Img && !hasAttr(c, "src") {
					n.RemoveChild(c)
					break
				}
				if p := clean(c); p != "" {
					return p
				}
			}
		}
		c = next
	}
	return ""
}

// checkCSS finds the problems of a style: style_import, then image_tracking for a
// remote resource.
func checkCSS(css string) string {
	switch {
	case reCSSImport.MatchString(css):
		return ProblemStyleImport
	case reCSSURL.MatchString(css):
		return ProblemTracking
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// cleanAttrs keeps the allowed attributes of an element: links to https, http,
// mailto or a link placeholder; images from https only; styles without remote
// resources or script. It reports a tracking image or a style problem.
func cleanAttrs(n *html.Node) string {
	var keep []html.Attribute
	tiny := false
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		// Markup placeholders are filled into text only.
		val := strings.NewReplacer(PlaceReviewButton, "", PlaceProducts, "").Replace(strings.TrimSpace(a.Val))
		if a.Namespace != "" || !allowedAttrs[key] {
			continue
		}
		switch key {
		case "href":
			if n.DataAtom != atom.A || !safeLink(val) {
				continue
			}
		case "src":
			if n.DataAtom != atom.Img || !strings.HasPrefix(strings.ToLower(val), "https://") {
				continue
			}
		case "style":
			if p := checkCSS(val); p != "" {
				return p
			}
			// A value filled into a style is HTML-escaped, not CSS-escaped: a
			// customer name could add declarations (a remote background).
			if rePlaceholder.MatchString(a.Val) {
				return ProblemPlaceholder
			}
			if reCSSUnsafe.MatchString(val) {
				continue
			}
			if n.DataAtom == atom.Img && reHidden.MatchString(val) {
				tiny = true
			}
		case "width", "height":
			if px, err := strconv.ParseFloat(strings.TrimSuffix(strings.ToLower(val), "px"), 64); err == nil && px <= 2 {
				tiny = n.DataAtom == atom.Img || tiny
			}
		}
		keep = append(keep, html.Attribute{Key: key, Val: val})
	}
	if tiny {
		return ProblemTracking
	}
	if n.DataAtom == atom.A {
		keep = append(keep, html.Attribute{Key: "rel", Val: "noopener"})
	}
	n.Attr = keep
	return ""
}

// safeLink accepts https, http and mailto addresses and the link placeholders.
func safeLink(v string) bool {
	l := strings.ToLower(v)
	return v == PlaceReviewURL || v == PlaceUnsubscribe || strings.HasPrefix(l, "https://") ||
		strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "mailto:")
}

// BrandTemplate is a saved brand template: a subject and sanitised HTML.
type BrandTemplate struct {
	Subject string
	HTML    string
}

// brandWords are the texts reviewd adds to a brand template.
var brandWords = map[string]map[string]string{
	"tr": {"button": "Yorum yaz", "fallback": "Düğme çalışmazsa bu bağlantıyı açın:", "stop": "Değerlendirme isteklerini artık almak istemiyorum"},
	"en": {"button": "Write a review", "fallback": "If the button does not work, open this link:", "stop": "Stop receiving review requests"},
}

// RenderBrand renders a brand template of kind (invitation, reminder or
// experience) in lang with data, as Render does for the built-in templates: the
// placeholders are filled with escaped values, the stop-e-mails footer is added,
// the plain text is made from the HTML, and reminder subjects start with
// ReminderPrefix. The review link and the stop link are required.
func RenderBrand(kind, lang string, t BrandTemplate, data TemplateData) (subject, text, htmlBody string, err error) {
	words, ok := brandWords[lang]
	if !ok || (kind != KindInvitation && kind != KindReminder && kind != KindExperience) {
		return "", "", "", fmt.Errorf("%w: brand %s.%s", ErrUnknownTemplate, kind, lang)
	}
	if err := checkData(kind, data); err != nil {
		return "", "", "", err
	}
	plain := strings.NewReplacer(PlaceBrand, data.Brand, PlaceCustomerName, data.CustomerName,
		PlaceProducts, strings.Join(data.Products, ", "), PlaceReviewButton, "", PlaceReviewURL, data.ReviewURL,
		PlaceUnsubscribe, data.UnsubscribeURL)
	subject = oneLine(plain.Replace(t.Subject))
	if kind == KindReminder {
		subject = ReminderPrefix + subject
	}
	esc := htmlstd.EscapeString
	var products strings.Builder
	if len(data.Products) > 0 {
		products.WriteString("<ul>")
		for _, p := range data.Products {
			products.WriteString("<li>" + esc(p) + "</li>")
		}
		products.WriteString("</ul>")
	}
	button := `<p style="margin:24px 0;"><a href="` + esc(data.ReviewURL) + `" style="display:inline-block;padding:10px 20px;` +
		`background:#222222;color:#ffffff;text-decoration:none;border-radius:4px;">` + esc(words["button"]) + `</a></p>` +
		`<p style="font-size:13px;color:#555555;">` + esc(words["fallback"]) + `<br><a href="` + esc(data.ReviewURL) +
		`" style="color:#555555;word-break:break-all;">` + esc(data.ReviewURL) + `</a></p>`
	body := strings.NewReplacer(PlaceBrand, esc(data.Brand), PlaceCustomerName, esc(data.CustomerName),
		PlaceProducts, products.String(), PlaceReviewButton, button, PlaceReviewURL, esc(data.ReviewURL),
		PlaceUnsubscribe, esc(data.UnsubscribeURL)).Replace(t.HTML)
	footer := `<p style="margin-top:32px;font-size:12px;color:#666666;">` + esc(data.Brand) + `<br><a href="` +
		esc(data.UnsubscribeURL) + `" style="color:#666666;">` + esc(words["stop"]) + `</a></p>`
	htmlBody = "<!DOCTYPE html>\n<html lang=\"" + lang + "\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + esc(subject) + "</title>\n</head>\n" +
		"<body style=\"margin:0;padding:0;background:#f5f5f5;\">\n<div style=\"max-width:560px;margin:0 auto;padding:24px;" +
		"background:#ffffff;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222222;\">\n" +
		body + "\n" + footer + "\n</div>\n</body>\n</html>\n"
	text = plainText(t.HTML, plain, words["button"]+":\n"+data.ReviewURL, data) + "\n\n--\n" + data.Brand + "\n" +
		words["stop"] + ":\n" + data.UnsubscribeURL + "\n"
	return subject, text, htmlBody, nil
}

// plainText makes the text part from a template's HTML: block elements end
// lines, links show their address, the button becomes its label and the link.
func plainText(src string, plain *strings.Replacer, button string, data TemplateData) string {
	nodes, err := html.ParseFragment(strings.NewReader(src), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			s := strings.Join(strings.Fields(n.Data), " ")
			s = strings.ReplaceAll(s, PlaceReviewButton, "\n"+button+"\n")
			if strings.Contains(s, PlaceProducts) && len(data.Products) > 0 {
				s = strings.ReplaceAll(s, PlaceProducts, "\n  - "+strings.Join(data.Products, "\n  - ")+"\n")
			}
			b.WriteString(plain.Replace(s))
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Style:
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteString("\n")
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.A:
				for _, a := range n.Attr {
					if a.Key == "href" && a.Val != PlaceReviewURL {
						b.WriteString(" (" + plain.Replace(a.Val) + ")")
					} else if a.Key == "href" {
						b.WriteString(" (" + data.ReviewURL + ")")
					}
				}
			case atom.P, atom.Div, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.Blockquote, atom.Table, atom.Ul, atom.Ol:
				b.WriteString("\n")
			}
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	lines := strings.Split(b.String(), "\n")
	var out []string
	blank := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
