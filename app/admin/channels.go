package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/channels"
	"reviewd/app/web"
)

// channelBodyLimit is the largest channel, domain or request body read.
const channelBodyLimit = 8 << 10

// handleChannelList serves GET /admin/v1/channels: the channel rows with the quota.
func (h *Handler) handleChannelList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	lq, err := readListQuery(r)
	if err != nil {
		return err
	}
	out, err := h.Channels.ListChannels(r.Context(), lq)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// channelCreateBody is the body of POST /admin/v1/channels: a website channel
// (kind website, the default) or a key (kind api_key).
type channelCreateBody struct {
	Kind          string    `json:"kind"`
	Code          string    `json:"code"`
	Label         string    `json:"label"`
	Market        string    `json:"market"`
	Language      string    `json:"language"`
	BrandName     string    `json:"brand_name"`
	LandingURL    string    `json:"landing_url"`
	SupportURL    string    `json:"support_url"`
	PrivacyURL    string    `json:"privacy_url"`
	SenderAddress string    `json:"sender_address"`
	TimeZone      string    `json:"time_zone"`
	Channel       string    `json:"channel"`
	Scopes        *[]string `json:"scopes"`
}

// handleChannelCreate serves POST /admin/v1/channels: 201 with the channel row, or
// for kind api_key the key shown this once.
func (h *Handler) handleChannelCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var b channelCreateBody
	if err := web.DecodeJSON(r, channelBodyLimit, web.ModeAPI, &b); err != nil {
		return err
	}
	switch b.Kind {
	case "api_key":
		k, err := h.Access.CreatePanelKey(r.Context(), a, b.Label, b.Channel, b.Scopes)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		return web.JSON(w, http.StatusCreated, map[string]any{"id": k.PublicID, "kind": k.Kind, "key": k.Secret,
			"scopes": scopeList(k.Scopes), "channel": optCode(k.Channel), "label": k.Label})
	case "", "website":
	default:
		return core.Invalid("kind")
	}
	ch, err := h.Channels.CreateChannel(r.Context(), a, channels.NewChannel{Code: b.Code, Market: b.Market, Language: b.Language,
		Label: b.Label, BrandName: b.BrandName, LandingURL: b.LandingURL, PrivacyURL: b.PrivacyURL, SupportURL: b.SupportURL,
		SenderAddress: b.SenderAddress, TimeZone: b.TimeZone})
	if err != nil {
		return err
	}
	row, err := h.Channels.Row(r.Context(), ch.Code)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, row)
}

// channelChangeBody is the body of PATCH /admin/v1/channels/{code}.
type channelChangeBody struct {
	Label         *string `json:"label"`
	BrandName     *string `json:"brand_name"`
	SenderAddress *string `json:"sender_address"`
	SupportURL    *string `json:"support_url"`
	PrivacyURL    *string `json:"privacy_url"`
	LandingURL    *string `json:"landing_url"`
	ReviewStyle   *string `json:"review_style"`
	ReviewTheme   *string `json:"review_theme"`
	Active        *bool   `json:"active"`
	TimeZone      *string `json:"time_zone"`
}

// handleChannelUpdate serves PATCH /admin/v1/channels/{code}: the changed row.
func (h *Handler) handleChannelUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var b channelChangeBody
	if err := web.DecodeJSON(r, channelBodyLimit, web.ModeAPI, &b); err != nil {
		return err
	}
	out, err := h.Channels.UpdateChannel(r.Context(), a, web.Vars(r)["code"], channels.Change{Label: b.Label,
		BrandName: b.BrandName, SenderAddress: b.SenderAddress, SupportURL: b.SupportURL, PrivacyURL: b.PrivacyURL,
		LandingURL: b.LandingURL, Style: b.ReviewStyle, Theme: b.ReviewTheme, Active: b.Active, TimeZone: b.TimeZone})
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleChannelDelete serves DELETE /admin/v1/channels/{code}: 204.
func (h *Handler) handleChannelDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Channels.DeleteChannel(r.Context(), a, web.Vars(r)["code"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleChannelRequest serves POST /admin/v1/channel-requests: 201 {id, state}.
func (h *Handler) handleChannelRequest(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var b struct {
		Market string `json:"market"`
		Label  string `json:"label"`
		Note   string `json:"note"`
	}
	if err := web.DecodeJSON(r, channelBodyLimit, web.ModeAPI, &b); err != nil {
		return err
	}
	out, err := h.Channels.RequestChannel(r.Context(), a, channels.NewRequest{Market: b.Market, Label: b.Label, Note: b.Note})
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleDomainAdd serves POST /admin/v1/channels/{code}/domains: 201 with the
// proof token, path and dns_name.
func (h *Handler) handleDomainAdd(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var b struct {
		Domain string `json:"domain"`
	}
	if err := web.DecodeJSON(r, channelBodyLimit, web.ModeAPI, &b); err != nil {
		return err
	}
	out, err := h.Channels.AddDomain(r.Context(), a, web.Vars(r)["code"], b.Domain)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleDomainVerify serves POST /admin/v1/channels/{code}/domains/{domain}/verify.
func (h *Handler) handleDomainVerify(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var b struct {
		Method string `json:"method"`
	}
	if err := web.DecodeJSON(r, channelBodyLimit, web.ModeAPI, &b); err != nil {
		return err
	}
	v := web.Vars(r)
	out, err := h.Channels.VerifyDomain(r.Context(), a, v["code"], v["domain"], b.Method)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleDomainDelete serves DELETE /admin/v1/channels/{code}/domains/{domain}: 204.
func (h *Handler) handleDomainDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := web.Vars(r)
	if err := h.Channels.DeleteDomain(r.Context(), a, v["code"], v["domain"]); err != nil {
		return err
	}
	return web.NoContent(w)
}
