package panel

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"reviewd/app/core"
	"reviewd/app/core/channels"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
)

type themesData struct {
	Channel, Product, Style, Theme string
	Channels, Styles, Themes       []string
	// SavedStyle and SavedTheme are the channel's own layout and theme (what its
	// site shows when it names none).
	SavedStyle, SavedTheme string
	// HTML is the component as GET /v1/ssr renders it ("" when refused: Refusal).
	HTML, Refusal string
	// RefusalText is the refusal in the user's language ("" when none is known).
	RefusalText string
	// Snippet is the product-page markup for this product, theme and layout with
	// the channel's site key ("" when the channel has none).
	Snippet string
}

// handleThemes serves GET /panel/themes (channel, product, style, theme): the
// page component of a product rendered with a chosen layout and theme
// (readmodel.RenderSSR, as GET /v1/ssr), shown in a sandboxed frame with the
// component's style sheet. The choice is in the address: the form is a plain GET
// form, and the script swaps the preview when a choice changes.
func (h *Handler) handleThemes(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	ctx, q := r.Context(), r.URL.Query()
	d := themesData{Channel: q.Get("channel"), Product: q.Get("product"), Style: q.Get("style"), Theme: q.Get("theme"),
		Styles: core.Styles, Themes: core.Themes}
	var err error
	if d.Channels, err = h.Channels.Codes(ctx); err != nil {
		return err
	}
	if d.Product == "" || d.Channel == "" {
		// The newest published review's product and channel: a product with reviews.
		l, err := h.Reviews.ListAdminReviews(ctx, a, reviews.AdminReviewFilter{ListQuery: core.ListQuery{Page: 1, PageSize: 1, Sort: "newest"},
			State: core.ReviewPublished, Channel: d.Channel})
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			d.Product, d.Channel = l.Items[0].VariantKey, l.Items[0].Channel
		}
	}
	if d.Channel == "" && len(d.Channels) > 0 {
		d.Channel = d.Channels[0]
	}
	if d.Channel == "" {
		// No channel yet: the choices, and no preview.
		d.Style, d.Theme = core.Styles[0], core.Themes[0]
		return h.show(w, r, a, "themes", d)
	}
	ch, err := core.ChannelFilter(ctx, h.Read.DB.Read(), d.Channel, "")
	if err != nil {
		return err
	}
	d.SavedStyle, d.SavedTheme = ch.Style, ch.Theme
	keys, err := h.Access.ListKeys(ctx)
	if err != nil {
		return err
	}
	if d.Style == "" {
		d.Style = ch.Style
	}
	if d.Theme == "" {
		d.Theme = ch.Theme
	}
	out, err := h.Read.RenderSSR(ctx, ch, readmodel.SSRInput{ListInput: readmodel.ListInput{Product: d.Product, Scope: "variant",
		Lang: language(r)}, Style: d.Style, Theme: d.Theme})
	if err != nil {
		var ce *core.Error
		if !errors.As(err, &ce) {
			return err
		}
		d.Refusal = ce.Code + " / " + ce.Detail
		v := view{Lang: language(r), Error: d.Refusal}
		d.RefusalText = v.ErrorText()
	} else {
		var ans readmodel.SSRAnswer
		if err := json.Unmarshal(out.Body, &ans); err != nil {
			return err
		}
		d.HTML = ans.HTML
		if key := siteKeyOf(keys, ch.Code); key != "" {
			d.Snippet = embedSnippet(h.PublicURL, key, d.Product, d.Theme, d.Style)
		}
	}
	return h.show(w, r, a, "themes", d)
}

// handleThemeSave serves POST /panel/themes (channel, style, theme, product):
// the layout and theme become the channel's own (channels.UpdateChannel, as PATCH
// /admin/v1/channels/<code> with review_style and review_theme); back to the
// page with the channel's new look.
func (h *Handler) handleThemeSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	style, theme := f.Get("style"), f.Get("theme")
	row, err := h.Channels.UpdateChannel(r.Context(), a, f.Get("channel"), channels.Change{Style: &style, Theme: &theme})
	if err != nil {
		return err
	}
	q := url.Values{"channel": {row.Code}}
	if p := f.Get("product"); p != "" {
		q.Set("product", p)
	}
	r.PostForm.Set("back", "/panel/themes?"+q.Encode())
	return back(w, r, "/panel/themes", "saved")
}
