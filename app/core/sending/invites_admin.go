package sending

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// InviteFilter selects invitations for GET /admin/v1/invites.
type InviteFilter struct {
	core.ListQuery
	Channel string // channel code ("" = all)
	State   string // queued, sent, failed, skipped ("" = all)
}

// InviteItem is one row of the invitation list.
type InviteItem struct {
	ID              string     `json:"id"`
	Kind            string     `json:"kind"`
	Order           string     `json:"order"`
	OrderReference  string     `json:"order_reference"`
	Channel         string     `json:"channel"`
	LineReferences  []string   `json:"line_references"`
	Recipient       string     `json:"recipient"`
	RecipientErased bool       `json:"recipient_erased"`
	Language        string     `json:"language"`
	Route           string     `json:"route"`
	State           string     `json:"state"`
	Attempts        int        `json:"attempts"`
	LastError       string     `json:"last_error"`
	ReminderOf      *string    `json:"reminder_of"`
	NextAttemptAt   *time.Time `json:"next_attempt_at"`
	SentAt          *time.Time `json:"sent_at"`
	ExpiresAt       *time.Time `json:"expires_at"`
	CreatedAt       time.Time  `json:"created_at"`
}

// InviteCounters are the counters of the invitation list (channel filter only).
type InviteCounters struct {
	Queued  int `json:"queued"`
	Sent    int `json:"sent"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Conversion is the share of sent product invitations with at least one
	// product reviewed (0 to 1, four decimals).
	Conversion float64 `json:"conversion"`
}

// InviteList is the answer of GET /admin/v1/invites.
type InviteList struct {
	Items    []InviteItem   `json:"items"`
	Total    int            `json:"total"`
	Page     int            `json:"page"`
	Pages    int            `json:"pages"`
	PageSize int            `json:"page_size"`
	Counters InviteCounters `json:"counters"`
}

// inviteKinds are the messages the invitation list shows (rejection notices appear
// only in the message log).
var inviteKinds = []string{MsgInvitation, MsgReminder, MsgExperience}

func inviteTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ListInvites lists invitations, reminders and experience invitations with the
// counters from the read pool, then writes the read to the personal-data access log
// (invites.listed).
func (c *Service) ListInvites(ctx context.Context, a *core.Actor, f InviteFilter) (InviteList, error) {
	out := InviteList{Items: []InviteItem{}, Page: f.Page, PageSize: f.PageSize}
	switch f.State {
	case "", StateQueued, StateSent, StateFailed, StateSkipped:
	default:
		return out, core.Invalid("state")
	}
	q := c.DB.Read()
	personal := 0
	err := func() error {
		only, err := core.ChannelFilter(ctx, q, f.Channel, "")
		if err != nil {
			return err
		}
		sf := store.InvitationFilter{ChannelID: only.ID, State: f.State, Kinds: inviteKinds, Q: strings.TrimSpace(f.Q),
			Oldest: f.Sort == "oldest", Limit: f.PageSize, Offset: f.Offset()}
		if id, ok := ParseInvitationPublicID(sf.Q); ok {
			sf.QID = id
		}
		rows, total, err := q.ListInvitations(ctx, sf)
		if err != nil {
			return err
		}
		out.Total, out.Pages = total, core.PageCount(total, f.PageSize)
		for _, r := range rows {
			it := InviteItem{ID: InvitationPublicID(r.ID), Kind: r.Kind, Order: core.OrderPublicID(r.OrderID), OrderReference: r.OrderReference,
				Channel: r.ChannelCode, LineReferences: r.LineReferences, Recipient: r.Address, RecipientErased: r.RecipientErased,
				Language: r.Language, Route: r.Route, State: r.State, Attempts: r.Attempts, LastError: r.LastError,
				NextAttemptAt: inviteTime(r.NextAttemptAt), SentAt: inviteTime(r.SentAt), ExpiresAt: inviteTime(r.ExpiresAt), CreatedAt: r.CreatedAt}
			if it.LineReferences == nil {
				it.LineReferences = []string{}
			}
			if r.RecipientErased {
				it.Recipient = ""
			}
			if r.ParentID != 0 {
				p := InvitationPublicID(r.ParentID)
				it.ReminderOf = &p
			}
			if it.Recipient != "" {
				personal++
			}
			out.Items = append(out.Items, it)
		}
		counts, err := q.InvitationCounts(ctx, only.ID, inviteKinds)
		if err != nil {
			return err
		}
		out.Counters = InviteCounters{Queued: counts[StateQueued], Sent: counts[StateSent], Failed: counts[StateFailed], Skipped: counts[StateSkipped]}
		sentInv, err := q.InvitationCounts(ctx, only.ID, []string{MsgInvitation})
		if err != nil {
			return err
		}
		reviewed, err := c.reviewedInvitations(ctx, q, only.ID)
		if err != nil {
			return err
		}
		if n := sentInv[StateSent]; n > 0 {
			out.Counters.Conversion = math.Round(float64(reviewed)/float64(n)*10000) / 10000
		}
		return nil
	}()
	if err != nil {
		return out, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "invites.listed", "invitation", f.Channel, personal)
	})
	return out, err
}

// SendLogFilter selects message-log rows for GET /admin/v1/send-logs.
type SendLogFilter struct {
	core.ListQuery
	Channel     string // channel code
	ChannelKind string // email, webhook or whatsapp (once configured)
	Status      string // sent, retry, failed
}

// SendLogItem is one row of the message log.
type SendLogItem struct {
	ID              string    `json:"id"`
	Invitation      string    `json:"invitation"`
	Kind            string    `json:"kind"`
	OrderReference  string    `json:"order_reference"`
	Channel         string    `json:"channel"`
	ChannelKind     string    `json:"channel_kind"`
	Recipient       string    `json:"recipient"`
	RecipientErased bool      `json:"recipient_erased"`
	Subject         string    `json:"subject"`
	EventID         string    `json:"event_id"`
	MessageID       string    `json:"message_id"`
	Status          string    `json:"status"`
	Error           string    `json:"error"`
	Attempt         int       `json:"attempt"`
	At              time.Time `json:"at"`
	// ProviderStatus is the last status WhatsApp reported for the message (sent,
	// delivered, read, failed); only on whatsapp rows.
	ProviderStatus string `json:"provider_status,omitempty"`
}

// SendLogCounters count the attempts of the message log by status (channel and
// route filters only).
type SendLogCounters struct {
	Sent   int `json:"sent"`
	Retry  int `json:"retry"`
	Failed int `json:"failed"`
}

// SendLogList is the answer of GET /admin/v1/send-logs.
type SendLogList struct {
	Items    []SendLogItem   `json:"items"`
	Total    int             `json:"total"`
	Page     int             `json:"page"`
	Pages    int             `json:"pages"`
	PageSize int             `json:"page_size"`
	Counters SendLogCounters `json:"counters"`
}

// ListSendLogs lists the message log (every attempt of every message, rejection
// notices included) and writes the read to the personal-data access log
// (send_logs.listed). q also searches the recipient.
func (c *Service) ListSendLogs(ctx context.Context, a *core.Actor, f SendLogFilter) (SendLogList, error) {
	out := SendLogList{Items: []SendLogItem{}, Page: f.Page, PageSize: f.PageSize}
	switch f.ChannelKind {
	case "", brand.RouteEmail, brand.RouteWebhook:
	case brand.RouteWhatsApp:
		if !c.WhatsApp.Enabled() {
			return out, core.Invalid("channel_kind")
		}
	default:
		return out, core.Invalid("channel_kind")
	}
	switch f.Status {
	case "", LogSent, LogRetry, LogFailed:
	default:
		return out, core.Invalid("status")
	}
	q := c.DB.Read()
	personal := 0
	err := func() error {
		only, err := core.ChannelFilter(ctx, q, f.Channel, "")
		if err != nil {
			return err
		}
		sf := store.SendLogFilter{ChannelID: only.ID, ChannelKind: f.ChannelKind, Status: f.Status, Q: strings.TrimSpace(f.Q),
			Oldest: f.Sort == "oldest", Limit: f.PageSize, Offset: f.Offset()}
		rows, total, err := q.ListSendLogs(ctx, sf)
		if err != nil {
			return err
		}
		out.Total, out.Pages = total, core.PageCount(total, f.PageSize)
		for _, r := range rows {
			it := SendLogItem{ID: strconv.FormatInt(r.ID, 10), Invitation: InvitationPublicID(r.InvitationID), Kind: r.Kind,
				OrderReference: r.OrderReference, Channel: r.ChannelCode, ChannelKind: r.ChannelKind, Recipient: r.Recipient,
				RecipientErased: r.RecipientErased, Subject: r.Subject, EventID: r.EventID, MessageID: r.MessageID, Status: r.Status,
				Error: r.Error, Attempt: r.Attempt, At: r.At, ProviderStatus: r.ProviderStatus}
			if r.ChannelKind == brand.RouteWhatsApp && it.ProviderStatus == "" {
				it.ProviderStatus = LogSent
			}
			if r.RecipientErased {
				it.Recipient = ""
			}
			if it.Recipient != "" {
				personal++
			}
			out.Items = append(out.Items, it)
		}
		counts, err := q.SendLogCounts(ctx, sf)
		if err != nil {
			return err
		}
		out.Counters = SendLogCounters{Sent: counts[LogSent], Retry: counts[LogRetry], Failed: counts[LogFailed]}
		return nil
	}()
	if err != nil {
		return out, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "send_logs.listed", "send_log", f.Channel, personal)
	})
	return out, err
}

// WaitingForMail counts the messages waiting because e-mail sending is not set
// up (no SMTP host): queued, their last attempt put off with WaitMailOff. It is 0
// once a host is configured (they go at their next attempt).
func (c *Service) WaitingForMail(ctx context.Context) (int, error) {
	if c.Mailer.Enabled() {
		return 0, nil
	}
	return c.DB.Read().CountQueuedWaiting(ctx, WaitMailOff)
}
