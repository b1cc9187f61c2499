// Package golive is what a brand owner needs to go live alone: the go-live
// checklist, each step's state read from the server (never ticked by hand), and
// the owner alerts, conditions that keep reviews from being shown or sent, each
// gone by itself once its condition ends; the alerts are mailed to the owners at
// most once a day per kind. It reads the lower services and the database and
// writes only the day an alert kind was mailed.
package golive

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// Service is the go-live service.
type Service struct {
	DB *store.DB
	core.Clock
	Log *slog.Logger
	// PublicURL is reviewd's public address (the panel link in alert e-mails).
	PublicURL string
	Access    *access.Service
	Channels  *channels.Service
	Sending   *sending.Service
	Orders    *orders.Service
	// Reviews holds the upload scanner and the video probe (clamd and ffmpeg).
	Reviews *reviews.Service
	// Replica tells when the replica last took everything written (ok false: no
	// replica configured). Nil: no replica.
	Replica func() (last time.Time, ok bool)
	// ReplicaMaxLag is how far behind the replica may be before the owner is told.
	ReplicaMaxLag time.Duration
}

// Steps of the checklist, in order.
const (
	StepDomain  = "domain"
	StepKeys    = "keys"
	StepEmbed   = "embed"
	StepSending = "sending"
	StepOrder   = "order"
	StepReview  = "review"
)

// Step is one step of the checklist: Href is the panel page that does it.
type Step struct {
	Key  string
	Done bool
	Href string
}

// Checklist is the go-live checklist: Done when every step is.
type Checklist struct {
	Steps []Step
	Done  bool
	// Proofs are the domains added but not verified yet, with the file or DNS
	// record that proves them.
	Proofs []channels.ChannelProof
	// SiteKey and ServerKey: a usable key of that kind exists (the keys step
	// needs both).
	SiteKey, ServerKey bool
}

// Checklist reads the state of every step.
func (s *Service) Checklist(ctx context.Context) (Checklist, error) {
	f, err := s.DB.Read().LaunchFacts(ctx)
	if err != nil {
		return Checklist{}, err
	}
	if !f.Delivered {
		t, err := s.DB.Read().LastMailTest(ctx)
		if err != nil {
			return Checklist{}, err
		}
		f.Delivered = t.OK
	}
	c := Checklist{SiteKey: f.SiteKey, ServerKey: f.ServerKey, Steps: []Step{
		{StepDomain, f.VerifiedDomain, "/panel/channels"},
		{StepKeys, f.SiteKey && f.ServerKey, "/panel/keys"},
		{StepEmbed, f.SiteKeyUsed, "/panel/keys"},
		{StepSending, f.Delivered, "/panel/mail"},
		{StepOrder, f.Order, "/panel/keys"},
		{StepReview, f.Review, "/panel/reviews"},
	}}
	c.Done = true
	for _, st := range c.Steps {
		c.Done = c.Done && st.Done
	}
	c.Proofs, err = s.Channels.PendingProofs(ctx)
	return c, err
}

// Alert kinds.
const (
	AlertMailOff          = "mail_off"
	AlertOriginUnverified = "origin_unverified"
	AlertRevokedKeyUsed   = "revoked_key_used"
	AlertKeyUnused        = "key_unused"
	AlertClamdMissing     = "clamd_missing"
	AlertFFmpegMissing    = "ffmpeg_missing"
	AlertReplicaLag       = "replica_lag"
	AlertConnectionFailed = "connection_failing"
)

// Windows of the alerts: a refusal is recent for RefusalWindow; a site key
// unused for KeyUnusedAfter since it was made is named.
const (
	RefusalWindow  = 72 * time.Hour
	KeyUnusedAfter = 7 * 24 * time.Hour
)

// Alert is one condition the owner should know of.
type Alert struct {
	Kind string
	// Subject is the page host (origin_unverified), the key (revoked_key_used,
	// key_unused), the connection (connection_failing) or the tool.
	Subject string
	Channel string
	// Count is the refusals counted, the invitations waiting, or the failed reads.
	Count int
	// At is when it was last seen (refusals), the key was made, or the replica
	// last synced.
	At time.Time
	// Detail is the connection's last error code.
	Detail string
	// Href is the panel page that ends it.
	Href string
}

// Alerts lists the conditions holding now.
func (s *Service) Alerts(ctx context.Context) ([]Alert, error) {
	var out []Alert
	now := s.Now()
	waiting, err := s.Sending.WaitingForMail(ctx)
	if err != nil {
		return nil, err
	}
	if waiting > 0 {
		out = append(out, Alert{Kind: AlertMailOff, Count: waiting, Href: "/panel/mail"})
	}
	q := s.DB.Read()
	refused, err := q.ComponentRefusals(ctx, now.Add(-RefusalWindow))
	if err != nil {
		return nil, err
	}
	for _, r := range refused {
		switch r.Kind {
		case access.RefusalOriginUnverified:
			// Verified since: the refusals stopped with it.
			if !r.SubjectVerified {
				out = append(out, Alert{Kind: AlertOriginUnverified, Subject: r.Subject, Channel: r.Channel, Count: r.Count,
					At: r.LastAt, Href: "/panel/channels"})
			}
		case access.RefusalRevokedSiteKey:
			out = append(out, Alert{Kind: AlertRevokedKeyUsed, Subject: r.Subject, Channel: r.Channel, Count: r.Count,
				At: r.LastAt, Href: "/panel/keys"})
		}
	}
	keys, err := s.Access.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.Kind == access.KindSite && k.RevokedAt.IsZero() && k.LastUsedAt.IsZero() && now.Sub(k.CreatedAt) >= KeyUnusedAfter {
			out = append(out, Alert{Kind: AlertKeyUnused, Subject: k.PublicID, Channel: k.Channel, At: k.CreatedAt,
				Count: int(now.Sub(k.CreatedAt).Hours() / 24), Href: "/panel/keys"})
		}
	}
	if s.Reviews != nil {
		if s.Reviews.Scanner == nil || s.Reviews.Scanner.Address == "" {
			out = append(out, Alert{Kind: AlertClamdMissing, Subject: "clamd", Href: "/panel/diagnostics"})
		}
		if s.Reviews.Probe.Available() != nil {
			out = append(out, Alert{Kind: AlertFFmpegMissing, Subject: "ffmpeg", Href: "/panel/diagnostics"})
		}
	}
	if s.Replica != nil {
		if last, ok := s.Replica(); ok && now.Sub(last) > s.maxLag() {
			out = append(out, Alert{Kind: AlertReplicaLag, Subject: "replica", At: last, Href: "/panel/diagnostics",
				Count: int(now.Sub(last).Minutes())})
		}
	}
	src, err := s.Orders.ListOrderSources(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range src.Items {
		if c.Enabled && c.LastError != nil {
			out = append(out, Alert{Kind: AlertConnectionFailed, Subject: c.ID, Channel: c.Channel, Count: c.Failures,
				Detail: *c.LastError, Href: "/panel/diagnostics?connection=" + c.ID})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Kind] < rank[out[j].Kind] })
	return out, nil
}

// rank orders the alerts: what keeps reviews from being shown first.
var rank = map[string]int{AlertOriginUnverified: 0, AlertRevokedKeyUsed: 1, AlertMailOff: 2, AlertConnectionFailed: 3,
	AlertKeyUnused: 4, AlertReplicaLag: 5, AlertClamdMissing: 6, AlertFFmpegMissing: 7}

func (s *Service) maxLag() time.Duration {
	if s.ReplicaMaxLag > 0 {
		return s.ReplicaMaxLag
	}
	return 15 * time.Minute
}
