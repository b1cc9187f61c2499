package sending

// Alert e-mails to the brand administrators (spec 3, "Events"): when marketplace
// removals are held back, and when reads of an order or marketplace connection
// fail in a row as often as the settings' warning_limit (0 turns both off). One
// e-mail per episode: the first alert of a connection and kind opens the episode
// (table alert_episodes) and mails; later alerts of the same episode do not; the
// connection's next successful read ends it. Brand administrators are the panel
// users whose role may change settings (owner and manager).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/mail"
	"reviewd/store"
)

// Alert kinds.
const (
	AlertFailed = "failed"
	AlertHeld   = "held"
)

// Alert is one alert about a connection.
type Alert struct {
	// Subject names the connection for its episodes ("order_source:os_3").
	Subject string
	Kind    string
	// What is the connection as the e-mail names it.
	What string
	// Count is the failed reads in a row (failed) or the reviews held back (held).
	Count int
	// Error is the last failure code (failed).
	Error string
	At    time.Time
}

// RaiseAlert mails the brand administrators about al unless warning_limit is 0,
// a failed alert has not reached it, or al's episode is open already; it reports
// whether it mailed. When no e-mail could be sent the episode stays closed, so the
// next alert tries again.
func (c *Service) RaiseAlert(ctx context.Context, al Alert) (bool, error) {
	q := c.DB.Read()
	set, err := c.Brand.LoadSettings(ctx, q)
	if err != nil {
		return false, err
	}
	if set.WarningLimit <= 0 || al.Kind == AlertFailed && al.Count < set.WarningLimit {
		return false, nil
	}
	to, err := alertRecipients(ctx, q)
	if err != nil || len(to) == 0 {
		return false, err
	}
	var opened bool
	if err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		opened, err = tx.OpenAlertEpisode(ctx, al.Subject, al.Kind)
		return err
	}); err != nil || !opened {
		return false, err
	}
	subject, text := c.alertText(al)
	sent := 0
	for _, addr := range to {
		if _, err := c.Mailer.Send(ctx, mail.Message{To: addr, Subject: subject, Text: text}); err != nil {
			c.Log.Warn("alert e-mail not sent", "alert", al.Subject, "kind", al.Kind, "err", err)
			continue
		}
		sent++
	}
	if sent == 0 {
		return false, c.EndAlert(context.WithoutCancel(ctx), al.Subject, al.Kind)
	}
	return true, nil
}

// EndAlert ends the episode of subject and kind ("" ends every kind): the
// connection read successfully.
func (c *Service) EndAlert(ctx context.Context, subject, kind string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.EndAlertEpisode(ctx, subject, kind) })
}

// alertRecipients lists the e-mail addresses of the active panel users whose role
// may change settings.
func alertRecipients(ctx context.Context, q *store.Q) ([]string, error) {
	users, err := q.ListUsers(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, u := range users {
		if u.DisabledAt.IsZero() && u.Email != "" && core.PermsOfRole(u.Role)[core.PermWrite] {
			out = append(out, u.Email)
		}
	}
	return out, nil
}

func (c *Service) alertText(al Alert) (subject, text string) {
	var b strings.Builder
	switch al.Kind {
	case AlertHeld:
		subject = fmt.Sprintf("reviewd: removals held back on %s", al.What)
		fmt.Fprintf(&b, "A read of %s no longer lists %d imported review(s) shown on your storefront.\n", al.What, al.Count)
		b.WriteString("They stay published until you confirm the removals: read the connection again with confirm_removals,\n")
		b.WriteString("or check the run's held_products first.\n")
	default:
		subject = fmt.Sprintf("reviewd: %s failed %d times in a row", al.What, al.Count)
		fmt.Fprintf(&b, "Reads of %s have failed %d times in a row.\n", al.What, al.Count)
		if al.Error != "" {
			fmt.Fprintf(&b, "Last failure: %s", al.Error)
			if !al.At.IsZero() {
				fmt.Fprintf(&b, " (%s)", al.At.UTC().Format("2006-01-02 15:04 UTC"))
			}
			b.WriteString(".\n")
		}
		b.WriteString("Reads go on as scheduled; check the connection's details and credentials.\n")
	}
	if c.PublicURL != "" {
		fmt.Fprintf(&b, "\nPanel: %s/panel/\n", strings.TrimRight(c.PublicURL, "/"))
	}
	b.WriteString("\nYou receive this e-mail once until the connection reads successfully again, because your\n")
	b.WriteString("role may change settings. The warning_limit setting decides when it is sent (0 turns it off).\n")
	return subject, b.String()
}
