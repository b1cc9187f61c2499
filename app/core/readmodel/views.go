package readmodel

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// Component views (POST /v1/views): one counter per UTC day, channel, product and
// how the component was shown. The width is kept only as one of four ranges.

// View widths: the four ranges a review area width is stored as.
var WidthRanges = []struct {
	Min  float64
	Name string
}{{1200, "1200+"}, {768, "768-1199"}, {480, "480-767"}, {0, "0-479"}}

// Shown values of a view.
var ShownValues = []string{"default", "coded", "headless"}

// ViewInput is the body of POST /v1/views (sent as text/plain JSON). Every field is
// read loosely: a missing or invalid optional field only leaves it out.
type ViewInput struct {
	Product json.RawMessage `json:"product"`
	Scope   json.RawMessage `json:"scope"`
	Shown   json.RawMessage `json:"shown"`
	Style   json.RawMessage `json:"style"`
	Theme   json.RawMessage `json:"theme"`
	Width   json.RawMessage `json:"width"`
}

// ViewClient is what the request says about its sender.
type ViewClient struct {
	UserAgent  string
	Purpose    string
	SecPurpose string
	XMoz       string
	XPurpose   string
}

func rawString(raw json.RawMessage) (string, bool) {
	var s string
	if core.IsNull(raw) || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func oneOfOr(v string, allowed []string) string {
	if contains(allowed, v) {
		return v
	}
	return ""
}

// widthRange maps a width in pixels to its range ("" when not a number >= 0).
func widthRange(raw json.RawMessage) string {
	var f float64
	if core.IsNull(raw) || json.Unmarshal(raw, &f) != nil || f < 0 || f > 1e6 {
		return ""
	}
	for _, r := range WidthRanges {
		if f >= r.Min {
			return r.Name
		}
	}
	return ""
}

// CountView counts one view of the component on channel ch unless the sender is a
// bot, link preview tool or prefetch. It reports whether the view was counted.
// Errors: invalid / product, invalid / scope.
func (c *Service) CountView(ctx context.Context, ch store.Channel, in ViewInput, from ViewClient) (bool, error) {
	product, ok := rawString(in.Product)
	if !ok || strings.TrimSpace(product) == "" || utf8.RuneCountInString(product) > core.MaxProductKey {
		return false, core.Invalid("product")
	}
	scope, ok := rawString(in.Scope)
	if !ok || (scope != store.ScopeVariant && scope != store.ScopeGroup) {
		return false, core.Invalid("scope")
	}
	if core.IsBot(from.UserAgent) || core.IsPrefetch(from.Purpose, from.SecPurpose, from.XMoz, from.XPurpose) {
		return false, nil
	}
	shown, _ := rawString(in.Shown)
	style, _ := rawString(in.Style)
	theme, _ := rawString(in.Theme)
	k := store.ViewKey{Day: c.Now().UTC().Format("2006-01-02"), ChannelID: ch.ID, Scope: scope, ProductKey: product,
		Shown: oneOfOr(shown, ShownValues), Style: oneOfOr(style, core.Styles), Theme: oneOfOr(theme, core.Themes),
		Width: widthRange(in.Width)}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.CountView(ctx, k) })
	return err == nil, err
}
