package brand

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"
	_ "time/tzdata" // time zones work in a static binary without a system zoneinfo

	"reviewd/app/core"
	"reviewd/store"
)

// settingsKey is the settings-table key of the brand settings (one JSON value).
const settingsKey = "brand_settings"

// Delivery routes of invitations (settings invite_delivery and reminder_delivery,
// send_logs.channel_kind).
const (
	RouteEmail    = "email"
	RouteWebhook  = "webhook"
	RouteWhatsApp = "whatsapp"
)

// Routes lists the sending routes every installation offers (settings deliveries);
// the messaging-app route is added when WhatsApp is configured (Service.WhatsApp).
var Routes = []string{RouteEmail, RouteWebhook}

// routes is the deliveries list of this installation.
func (c *Service) routes() []string {
	if c.WhatsApp {
		return []string{RouteEmail, RouteWebhook, RouteWhatsApp}
	}
	return append([]string(nil), Routes...)
}

// shape fills the fields that follow from the installation: deliveries, and
// whatsapp_fallback_email (default true) only when WhatsApp is configured, so an
// installation without it answers exactly as v1.
func (c *Service) shape(s *Settings) {
	s.Deliveries = c.routes()
	if !c.WhatsApp {
		s.WhatsAppFallbackEmail = nil
	} else if s.WhatsAppFallbackEmail == nil {
		yes := true
		s.WhatsAppFallbackEmail = &yes
	}
}

// FallbackEmail reports whether an order that cannot get its WhatsApp message
// (no usable phone, number opted out) gets the e-mail instead.
func (s Settings) FallbackEmail() bool {
	return s.WhatsAppFallbackEmail == nil || *s.WhatsAppFallbackEmail
}

// Settings are the brand-wide settings of spec 3 and CONTRACT "wire names". The
// JSON names are the wire names of GET and POST /admin/v1/settings.
type Settings struct {
	TimeZone             string   `json:"time_zone"`
	QuestionsEnabled     bool     `json:"questions_enabled"`
	ReplyTone            string   `json:"reply_tone"`
	AITranslationEnabled bool     `json:"ai_translation_enabled"`
	AISummaryEnabled     bool     `json:"ai_summary_enabled"`
	SyndicationEnabled   bool     `json:"syndication_enabled"`
	ReminderConsent      string   `json:"reminder_consent"`
	Deliveries           []string `json:"deliveries"`
	InviteDelivery       string   `json:"invite_delivery"`
	ReminderDelivery     string   `json:"reminder_delivery"`
	WebhookURL           string   `json:"webhook_url"`
	SupportURL           string   `json:"support_url"`
	SenderAddress        string   `json:"sender_address"`
	InviteDelayDays      int      `json:"invite_delay_days"`
	SendWindow           string   `json:"send_window"`
	DailyLimit           int      `json:"daily_limit"`
	ReminderAfterDays    int      `json:"reminder_after_days"`
	PublishingMethod     string   `json:"publishing_method"`
	// WarningLimit is how many reads of an order or marketplace connection may fail
	// in a row before the brand administrators get an e-mail; 0 turns these e-mails
	// and the e-mail about held marketplace removals off (spec 3, "Events").
	WarningLimit int `json:"warning_limit"`
	// WhatsAppFallbackEmail: an order without a usable phone, or with an opted-out
	// number, is invited by e-mail (default) or not at all. Present only when
	// WhatsApp is configured.
	WhatsAppFallbackEmail *bool `json:"whatsapp_fallback_email,omitempty"`
}

// Limits of the numeric settings.
const (
	MaxInviteDelayDays   = 60
	MaxReminderAfterDays = 60
	MaxDailyLimit        = 20
	MaxWarningLimit      = 100
	maxSettingURL        = 500
)

// routeFields change only in a panel session (spec 3, Authentication rule 3).
var routeFields = map[string]bool{"invite_delivery": true, "reminder_delivery": true, "webhook_url": true,
	"support_url": true, "sender_address": true}

// DefaultWarningLimit is warning_limit of a new installation.
const DefaultWarningLimit = 3

// DefaultSettings are the settings of a new installation.
func DefaultSettings() Settings {
	return Settings{
		TimeZone: "Europe/Istanbul", ReplyTone: "formal", ReminderConsent: "not_required",
		Deliveries: append([]string(nil), Routes...), InviteDelivery: RouteEmail, ReminderDelivery: RouteEmail,
		InviteDelayDays: 2, SendWindow: "09:00-21:00", DailyLimit: 1, ReminderAfterDays: 7, PublishingMethod: "hybrid",
		WarningLimit: DefaultWarningLimit,
	}
}

// LoadSettings reads the settings over q: the stored value over the defaults.
func (c *Service) LoadSettings(ctx context.Context, q *store.Q) (Settings, error) {
	s := DefaultSettings()
	var raw json.RawMessage
	err := q.Setting(ctx, settingsKey, &raw)
	if errors.Is(err, store.ErrNotFound) {
		c.shape(&s)
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("core: load settings: %w", err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return DefaultSettings(), fmt.Errorf("core: load settings: %w", err)
	}
	c.shape(&s)
	return s, nil
}

// Location is the time zone of the sending hours (UTC when unreadable).
func (s Settings) Location() *time.Location {
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil || s.TimeZone == "" || s.TimeZone == "Local" {
		return time.UTC
	}
	return loc
}

// Window is the parsed send_window (the whole day when unreadable).
func (s Settings) Window() SendWindow {
	w, ok := ParseSendWindow(s.SendWindow)
	if !ok {
		return SendWindow{Start: 0, End: 24 * 60}
	}
	return w
}

// SettingsView is the answer of the settings endpoints.
type SettingsView struct {
	Settings
	HasWebhookSecret bool `json:"has_webhook_secret"`
}

func (c *Service) settingsView(ctx context.Context, q *store.Q, s Settings) (SettingsView, error) {
	_, err := q.ActivePassword(ctx, core.PurposeNotification)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SettingsView{}, err
	}
	return SettingsView{Settings: s, HasWebhookSecret: err == nil}, nil
}

// SettingsOf returns the settings with has_webhook_secret.
func (c *Service) SettingsOf(ctx context.Context) (SettingsView, error) {
	q := c.DB.Read()
	s, err := c.LoadSettings(ctx, q)
	if err != nil {
		return SettingsView{}, err
	}
	return c.settingsView(ctx, q, s)
}

// UpdateSettings changes the settings named in fields (a partial update: fields not
// sent keep their value; unknown fields and deliveries are ignored). The route
// fields change only in a panel session (spec 3, Authentication rule 3): a key
// caller changing one gets 403 refused / panel_session_required (the answer names
// refused_fields and saved_fields) and only those fields keep their value; the
// other settings in the request are saved. Sending a route field with its current
// value is not a change. Errors: invalid / <field> for a wrong type or an
// out-of-range value, url_invalid, invite_delivery_unavailable,
// reminder_delivery_unavailable, webhook_url_required, webhook_secret_missing,
// sender_domain_unverified, 502 sender_domain_check_failed / dns_unreachable (a new
// sender address, checked first). The change is written to the activity history.
func (c *Service) UpdateSettings(ctx context.Context, a *core.Actor, fields map[string]json.RawMessage) (SettingsView, error) {
	var view SettingsView
	var refused, saved []string
	if err := c.checkNewSender(ctx, a, fields); err != nil {
		return view, err
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		cur, err := c.LoadSettings(ctx, tx.Q)
		if err != nil {
			return err
		}
		next, changed, err := mergeSettings(cur, fields)
		c.shape(&next)
		if err != nil {
			return err
		}
		if !a.IsPanel() {
			var kept []string
			for _, f := range changed {
				if routeFields[f] {
					keepRouteField(&next, cur, f)
					refused = append(refused, f)
				} else {
					kept = append(kept, f)
				}
			}
			changed = kept
		}
		saved = changed
		if err := c.validateSettings(ctx, tx.Q, next); err != nil {
			return err
		}
		if len(changed) > 0 {
			if err := tx.SetSetting(ctx, settingsKey, next); err != nil {
				return err
			}
			if err := c.Record(ctx, tx, a, "settings.changed", "settings", "", map[string]any{"fields": changed}); err != nil {
				return err
			}
		}
		view, err = c.settingsView(ctx, tx.Q, next)
		return err
	})
	if err == nil && len(refused) > 0 {
		if saved == nil {
			saved = []string{}
		}
		return view, core.Refused("panel_session_required").With(map[string]any{"refused_fields": refused, "saved_fields": saved})
	}
	return view, err
}

// keepRouteField puts route field f of cur back into next.
func keepRouteField(next *Settings, cur Settings, f string) {
	switch f {
	case "invite_delivery":
		next.InviteDelivery = cur.InviteDelivery
	case "reminder_delivery":
		next.ReminderDelivery = cur.ReminderDelivery
	case "webhook_url":
		next.WebhookURL = cur.WebhookURL
	case "support_url":
		next.SupportURL = cur.SupportURL
	case "sender_address":
		next.SenderAddress = cur.SenderAddress
	}
}

// mergeSettings lays the sent fields over cur and lists the fields whose value
// changed, in wire order.
func mergeSettings(cur Settings, fields map[string]json.RawMessage) (Settings, []string, error) {
	base, err := json.Marshal(cur)
	if err != nil {
		return cur, nil, err
	}
	var orig map[string]json.RawMessage
	if err := json.Unmarshal(base, &orig); err != nil {
		return cur, nil, err
	}
	m := maps.Clone(orig)
	for k, v := range fields {
		if _, known := m[k]; !known || k == "deliveries" {
			continue
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return cur, nil, core.Invalid(k)
		}
		m[k] = v
	}
	merged, err := json.Marshal(m)
	if err != nil {
		return cur, nil, err
	}
	var next Settings
	if err := json.Unmarshal(merged, &next); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return cur, nil, core.Invalid(te.Field)
		}
		return cur, nil, core.ErrInvalidJSON
	}
	next.Deliveries = cur.Deliveries
	next.WebhookURL = strings.TrimSpace(next.WebhookURL)
	next.SupportURL = strings.TrimSpace(next.SupportURL)
	next.SenderAddress = strings.TrimSpace(next.SenderAddress)
	next.TimeZone = strings.TrimSpace(next.TimeZone)
	next.SendWindow = strings.TrimSpace(next.SendWindow)

	after, _ := json.Marshal(next)
	var nm map[string]json.RawMessage
	_ = json.Unmarshal(after, &nm)
	var changed []string
	for _, f := range settingsFieldOrder {
		if !bytes.Equal(orig[f], nm[f]) {
			changed = append(changed, f)
		}
	}
	return next, changed, nil
}

var settingsFieldOrder = []string{"time_zone", "questions_enabled", "reply_tone", "ai_translation_enabled", "ai_summary_enabled",
	"syndication_enabled", "reminder_consent", "invite_delivery", "reminder_delivery", "webhook_url", "support_url",
	"sender_address", "invite_delay_days", "send_window", "daily_limit", "reminder_after_days", "publishing_method",
	"warning_limit", "whatsapp_fallback_email"}

func settingIn(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// validateSettings checks a whole settings value; the first problem is returned.
func (c *Service) validateSettings(ctx context.Context, q *store.Q, s Settings) error {
	if _, err := time.LoadLocation(s.TimeZone); err != nil || s.TimeZone == "" || s.TimeZone == "Local" {
		return core.Invalid("time_zone")
	}
	switch {
	case !settingIn(s.ReplyTone, "formal", "warm"):
		return core.Invalid("reply_tone")
	case !settingIn(s.ReminderConsent, "not_required", "required"):
		return core.Invalid("reminder_consent")
	case !settingIn(s.InviteDelivery, c.routes()...):
		return core.Invalid("invite_delivery_unavailable")
	case !settingIn(s.ReminderDelivery, c.routes()...):
		return core.Invalid("reminder_delivery_unavailable")
	case s.WebhookURL != "" && !HttpsURL(s.WebhookURL):
		return core.Invalid("url_invalid")
	case s.SupportURL != "" && !HttpsURL(s.SupportURL):
		return core.Invalid("url_invalid")
	case s.SenderAddress != "" && !core.ValidEmail(s.SenderAddress):
		return core.Invalid("sender_address")
	case s.InviteDelayDays < 0 || s.InviteDelayDays > MaxInviteDelayDays:
		return core.Invalid("invite_delay_days")
	case !validWindow(s.SendWindow):
		return core.Invalid("send_window")
	case s.DailyLimit < 1 || s.DailyLimit > MaxDailyLimit:
		return core.Invalid("daily_limit")
	case s.ReminderAfterDays < 0 || s.ReminderAfterDays > MaxReminderAfterDays:
		return core.Invalid("reminder_after_days")
	case !settingIn(s.PublishingMethod, "automatic", "hybrid", "manual"):
		return core.Invalid("publishing_method")
	case s.WarningLimit < 0 || s.WarningLimit > MaxWarningLimit:
		return core.Invalid("warning_limit")
	}
	if s.InviteDelivery == RouteWebhook || s.ReminderDelivery == RouteWebhook {
		if s.WebhookURL == "" {
			return core.Invalid("webhook_url_required")
		}
		if _, err := q.ActivePassword(ctx, core.PurposeNotification); errors.Is(err, store.ErrNotFound) {
			return core.Invalid("webhook_secret_missing")
		} else if err != nil {
			return err
		}
	}
	return nil
}

// checkNewSender checks a sender address a panel user sets (a key's is refused as a
// route field) with the channels' sender rule, before the transaction because it
// may ask DNS: a verified domain of a channel, or a subdomain of one set up for
// mail. An unchanged, empty or unreadable value is left to the other checks.
func (c *Service) checkNewSender(ctx context.Context, a *core.Actor, fields map[string]json.RawMessage) error {
	raw, ok := fields["sender_address"]
	if !ok || !a.IsPanel() {
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	if v = strings.TrimSpace(v); v == "" || !core.ValidEmail(v) {
		return nil
	}
	cur, err := c.LoadSettings(ctx, c.DB.Read())
	if err != nil || v == cur.SenderAddress {
		return err
	}
	return c.Senders.CheckSender(ctx, v)
}

func validWindow(s string) bool { _, ok := ParseSendWindow(s); return ok }

// httpsURL reports whether s is a full https address of at most 500 characters
// without user details.
func HttpsURL(s string) bool {
	if len(s) > maxSettingURL || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Hostname() != "" && u.User == nil
}

// CreateWebhookSecret makes the notification password of own-system sending (shown
// once; it replaces the previous one). Only a panel session may: a key gets 403
// refused / panel_session_required.
func (c *Service) CreateWebhookSecret(ctx context.Context, a *core.Actor) (core.CreatedPassword, error) {
	if !a.IsPanel() {
		return core.CreatedPassword{}, core.Refused("panel_session_required")
	}
	return c.Passwords.CreatePassword(ctx, a, core.PurposeNotification, "")
}

// SendWindow is the daily sending hours: minutes after local midnight, Start
// inclusive, End exclusive. Start after End wraps over midnight.
type SendWindow struct{ Start, End int }

// ParseSendWindow reads "HH:MM-HH:MM" (24:00 allowed as the end).
func ParseSendWindow(s string) (SendWindow, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return SendWindow{}, false
	}
	start, ok1 := clockMinutes(a, false)
	end, ok2 := clockMinutes(b, true)
	if !ok1 || !ok2 || start == end {
		return SendWindow{}, false
	}
	return SendWindow{Start: start, End: end}, true
}

func clockMinutes(s string, end bool) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	var h, m int
	if _, err := fmt.Sscanf(s, "%2d:%2d", &h, &m); err != nil {
		return 0, false
	}
	for _, ch := range s[:2] + s[3:] {
		if ch < '0' || ch > '9' {
			return 0, false
		}
	}
	if end && h == 24 && m == 0 {
		return 24 * 60, true
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// Contains reports whether the local time t is inside the window.
func (w SendWindow) Contains(t time.Time) bool {
	m := t.Hour()*60 + t.Minute()
	if w.Start < w.End {
		return m >= w.Start && m < w.End
	}
	return m >= w.Start || m < w.End
}

// Next returns t when it is inside the window, else the next start of the window
// after t (in t's location).
func (w SendWindow) Next(t time.Time) time.Time {
	if w.Contains(t) {
		return t
	}
	y, mo, d := t.Date()
	start := time.Date(y, mo, d, w.Start/60, w.Start%60, 0, 0, t.Location())
	if !start.After(t) {
		start = time.Date(y, mo, d+1, w.Start/60, w.Start%60, 0, 0, t.Location())
	}
	return start
}
