// Package whatsapp is reviewd's client of the WhatsApp Business Platform Cloud API
// (Meta's Graph API): it sends approved template messages through the SSRF-safe
// outbound client, reads the error answers into message-log reasons, checks the
// signature of incoming webhook events and reads them. It knows nothing of
// invitations; app/core/sending decides what is sent and when.
package whatsapp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"reviewd/app/outbound"
)

// DefaultAPIURL is the Graph API base address (whatsapp.api_url).
const DefaultAPIURL = "https://graph.facebook.com/v25.0"

// Limits of one send call.
const (
	SendTimeout  = 15 * time.Second
	sendMaxBytes = 64 << 10
)

// Config is the operator's WhatsApp configuration. The route is on when
// PhoneNumberID, AccessToken and InviteTemplate are set.
type Config struct {
	PhoneNumberID    string
	AccessToken      string
	AppSecret        string
	VerifyToken      string
	APIURL           string
	InviteTemplate   string
	ReminderTemplate string
}

// Configured reports whether messages can be sent.
func (c Config) Configured() bool {
	return c.PhoneNumberID != "" && c.AccessToken != "" && c.InviteTemplate != ""
}

// Client sends template messages. A nil *Client is an unconfigured route.
type Client struct {
	cfg Config
	out *outbound.Client
}

// New returns a client, or nil when cfg is not Configured.
func New(cfg Config, out *outbound.Client) *Client {
	if !cfg.Configured() || out == nil {
		return nil
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	if cfg.ReminderTemplate == "" {
		cfg.ReminderTemplate = cfg.InviteTemplate
	}
	return &Client{cfg: cfg, out: out}
}

// Enabled reports whether c can send.
func (c *Client) Enabled() bool { return c != nil }

// Template is the template name for a message kind: the reminder template for
// reminders, the invitation template otherwise.
func (c *Client) Template(reminder bool) string {
	if reminder {
		return c.cfg.ReminderTemplate
	}
	return c.cfg.InviteTemplate
}

// Message is one template message.
type Message struct {
	To       string // E.164
	Template string
	Language string // the order's language: tr or en
	// BodyParams are the template body's {{1}}, {{2}}, ... in order.
	BodyParams []string
	// URLSuffix, when set, is the parameter of the template's first URL button (the
	// dynamic part of the writing link).
	URLSuffix string
}

// Result is the outcome of one send. On success MessageID is the wamid; otherwise
// Reason is the message-log reason and Temporary says whether to retry (RetryAfter,
// when set, is the least wait: rate limits).
type Result struct {
	OK         bool
	MessageID  string
	Temporary  bool
	Reason     string
	RetryAfter time.Duration
}

type param struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type component struct {
	Type       string  `json:"type"`
	SubType    string  `json:"sub_type,omitempty"`
	Index      string  `json:"index,omitempty"`
	Parameters []param `json:"parameters"`
}

type sendBody struct {
	MessagingProduct string `json:"messaging_product"`
	RecipientType    string `json:"recipient_type"`
	To               string `json:"to"`
	Type             string `json:"type"`
	Template         struct {
		Name     string `json:"name"`
		Language struct {
			Code string `json:"code"`
		} `json:"language"`
		Components []component `json:"components,omitempty"`
	} `json:"template"`
}

// SendAnswer is the Graph API's answer to a send.
type SendAnswer struct {
	MessagingProduct string `json:"messaging_product"`
	Contacts         []struct {
		Input string `json:"input"`
		WaID  string `json:"wa_id"`
	} `json:"contacts"`
	Messages []struct {
		ID            string `json:"id"`
		MessageStatus string `json:"message_status,omitempty"`
	} `json:"messages"`
}

// ErrorAnswer is the Graph API's error answer.
type ErrorAnswer struct {
	Error APIError `json:"error"`
}

// APIError is the error object of the Graph API.
type APIError struct {
	Message      string `json:"message"`
	Type         string `json:"type"`
	Code         int    `json:"code"`
	ErrorSubcode int    `json:"error_subcode,omitempty"`
	FBTraceID    string `json:"fbtrace_id,omitempty"`
}

// Body is the request body of m (for tests and the panel's test message).
func Body(m Message) ([]byte, error) {
	var b sendBody
	b.MessagingProduct, b.RecipientType, b.To, b.Type = "whatsapp", "individual", strings.TrimPrefix(m.To, "+"), "template"
	b.Template.Name, b.Template.Language.Code = m.Template, m.Language
	if len(m.BodyParams) > 0 {
		c := component{Type: "body"}
		for _, p := range m.BodyParams {
			c.Parameters = append(c.Parameters, param{Type: "text", Text: p})
		}
		b.Template.Components = append(b.Template.Components, c)
	}
	if m.URLSuffix != "" {
		b.Template.Components = append(b.Template.Components, component{Type: "button", SubType: "url", Index: "0",
			Parameters: []param{{Type: "text", Text: m.URLSuffix}}})
	}
	return json.Marshal(b)
}

// Send posts m to {api_url}/{phone_number_id}/messages.
func (c *Client) Send(ctx context.Context, m Message) Result {
	body, err := Body(m)
	if err != nil {
		return Result{Reason: "message_invalid"}
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	h.Set("Content-Type", "application/json")
	resp, err := c.out.Do(outbound.WithTarget(ctx, "whatsapp"), outbound.Request{Method: http.MethodPost,
		URL: c.cfg.APIURL + "/" + c.cfg.PhoneNumberID + "/messages", Header: h, Body: body,
		Timeout: SendTimeout, MaxBytes: sendMaxBytes})
	if err != nil {
		switch code := outbound.Code(err); code {
		case outbound.CodePortRefused, outbound.CodeSchemeRefused, outbound.CodeURLInvalid, outbound.CodeAddressRefused,
			outbound.CodeRedirectRefused:
			return Result{Reason: code}
		default:
			return Result{Temporary: true, Reason: code}
		}
	}
	if resp.Status >= 200 && resp.Status < 300 {
		var a SendAnswer
		if err := json.Unmarshal(resp.Body, &a); err != nil || len(a.Messages) == 0 || a.Messages[0].ID == "" {
			return Result{Temporary: true, Reason: "answer_invalid"}
		}
		return Result{OK: true, MessageID: a.Messages[0].ID}
	}
	var ea ErrorAnswer
	if err := json.Unmarshal(resp.Body, &ea); err != nil || ea.Error.Code == 0 {
		temp := resp.Status == http.StatusTooManyRequests || resp.Status >= 500
		return Result{Temporary: temp, Reason: "http_status: " + strconv.Itoa(resp.Status)}
	}
	return Classify(ea.Error.Code, resp.Status)
}

// Message-log reasons of WhatsApp failures; the log reads "<reason>: <Meta code>".
const (
	ReasonRateLimited   = "rate_limited"        // 4, 80007, 130429, 131048, 131056
	ReasonReengagement  = "reengagement_window" // 131047: outside the 24-hour window
	ReasonUndeliverable = "undeliverable"       // 131026: not a WhatsApp user, old app, ...
	ReasonToken         = "token_invalid"       // 190: access token expired or revoked
	ReasonPermission    = "permission_denied"   // 10, 200-299
	ReasonTemplate      = "template_invalid"    // 132000-132016: missing, paused, wrong parameters
	ReasonRecipient     = "recipient_invalid"   // 100, 131008, 131009, 131021
	ReasonUserStopped   = "user_stopped"        // 131050: the user stopped messages of the business
	ReasonAccount       = "account_blocked"     // 368, 131031, 131042, 133010
	ReasonUnavailable   = "service_unavailable" // 1, 2, 131000, 131016, 131049
	ReasonOther         = "whatsapp_error"
)

// rateLimitWait is the least wait after a rate-limit answer (Meta asks for a
// back-off before the next attempt).
const rateLimitWait = 15 * time.Minute

// Classify reads Meta's error code (and the HTTP status) into a result: reason,
// temporary or not, and the least wait for rate limits.
func Classify(code, status int) Result {
	r := Result{Reason: ReasonOther}
	switch {
	case code == 4 || code == 80007 || code == 130429 || code == 131048 || code == 131056:
		r.Reason, r.Temporary, r.RetryAfter = ReasonRateLimited, true, rateLimitWait
	case code == 131047:
		r.Reason = ReasonReengagement
	case code == 131026:
		r.Reason = ReasonUndeliverable
	case code == 190:
		r.Reason = ReasonToken
	case code == 10 || code >= 200 && code <= 299:
		r.Reason = ReasonPermission
	case code >= 132000 && code <= 132999:
		r.Reason = ReasonTemplate
	case code == 100 || code == 131008 || code == 131009 || code == 131021:
		r.Reason = ReasonRecipient
	case code == 131050:
		r.Reason = ReasonUserStopped
	case code == 368 || code == 131031 || code == 131042 || code == 133010:
		r.Reason = ReasonAccount
	case code == 1 || code == 2 || code == 131000 || code == 131016 || code == 131049:
		r.Reason, r.Temporary = ReasonUnavailable, true
	default:
		r.Temporary = status >= 500
	}
	r.Reason += ": " + strconv.Itoa(code)
	return r
}
