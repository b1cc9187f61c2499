package sending

// The outgoing mail server set in the panel: host, port, security, login and
// sender, stored as one JSON object sealed with the master key (the password is
// never shown again). While set it overrides the configuration's smtp.* values
// for every e-mail reviewd sends, at once, without a restart (docs/decisions.md).
// Only the owner changes it.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/mail"
	"reviewd/store"
)

// MailServer is the mail server as the panel's form sends it. An empty Password
// keeps the stored one.
type MailServer struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Security string `json:"security"`
	Username string `json:"username"`
	Password string `json:"password"`
	From     string `json:"from"`
}

// MailServerView is what the panel shows: never the password, only whether one
// is set; Source says whose settings are in use ("panel", "config" or "" when
// sending is off).
type MailServerView struct {
	MailServer
	PasswordSet bool
	Source      string
	UpdatedAt   time.Time
	LastTest    store.MailTest
}

// ErrOwnerOnly refuses a change of the mail server by anyone but an owner.
var ErrOwnerOnly = core.ErrScopeMissing

// ownerOnly refuses every actor but an owner (the mail server is the owner's).
func ownerOnly(a *core.Actor) error {
	if a == nil || a.Role != "owner" {
		return ErrOwnerOnly
	}
	return nil
}

// MailServerOf reads the panel's mail server (password left out).
func (c *Service) MailServerOf(ctx context.Context) (MailServerView, error) {
	var v MailServerView
	ms, err := c.storedMailServer(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return v, err
	default:
		v.MailServer, v.PasswordSet, v.Source = ms, ms.Password != "", "panel"
		v.MailServer.Password = ""
		row, err := c.DB.Read().MailSettingsRow(ctx)
		if err != nil {
			return v, err
		}
		v.UpdatedAt = row.UpdatedAt
	}
	if v.Source == "" && c.Mailer.Enabled() {
		v.Source = "config"
	}
	if v.LastTest, err = c.DB.Read().LastMailTest(ctx); err != nil {
		return v, err
	}
	return v, nil
}

func (c *Service) storedMailServer(ctx context.Context) (MailServer, error) {
	row, err := c.DB.Read().MailSettingsRow(ctx)
	if err != nil {
		return MailServer{}, err
	}
	plain, err := c.Keys.Decrypt(row.Sealed)
	if err != nil {
		return MailServer{}, err
	}
	var ms MailServer
	return ms, json.Unmarshal(plain, &ms)
}

// ApplyMailServer puts the stored panel mail server into the mailer (called when
// the data folder is opened); without one the configuration applies.
func (c *Service) ApplyMailServer(ctx context.Context) error {
	ms, err := c.storedMailServer(ctx)
	if errors.Is(err, store.ErrNotFound) {
		c.Mailer.Override(nil)
		return nil
	}
	if err != nil {
		return err
	}
	c.Mailer.Override(ms.config())
	return nil
}

func (ms MailServer) config() *mail.Config {
	return &mail.Config{Host: ms.Host, Port: ms.Port, Security: ms.Security, Username: ms.Username, Password: ms.Password, From: ms.From}
}

// SaveMailServer checks and stores the mail server and puts it in use at once.
// Errors: 403 forbidden / scope_missing (not an owner), invalid / host, port,
// security, from, username, password.
func (c *Service) SaveMailServer(ctx context.Context, a *core.Actor, in MailServer) error {
	if err := ownerOnly(a); err != nil {
		return err
	}
	in.Host, in.Security = strings.TrimSpace(in.Host), strings.ToLower(strings.TrimSpace(in.Security))
	in.Username, in.From = strings.TrimSpace(in.Username), strings.TrimSpace(in.From)
	switch {
	case in.Host == "" || len(in.Host) > 253 || strings.ContainsAny(in.Host, " /:@\t\r\n"):
		return core.Invalid("host")
	case in.Port < 0 || in.Port > 65535:
		return core.Invalid("port")
	case in.Security != mail.SecurityNone && in.Security != mail.SecurityStartTLS && in.Security != mail.SecurityTLS:
		return core.Invalid("security")
	case len(in.Username) > 320 || strings.ContainsAny(in.Username, "\r\n"):
		return core.Invalid("username")
	case len(in.Password) > 1024:
		return core.Invalid("password")
	case in.From == "" || !core.ValidEmail(in.From):
		return core.Invalid("from")
	}
	if in.Password == "" {
		old, err := c.storedMailServer(ctx)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if old.Host == in.Host && old.Username == in.Username {
			in.Password = old.Password
		}
	}
	plain, _ := json.Marshal(in)
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.PutMailSettings(ctx, c.Keys.Encrypt(plain)); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "mail_server.saved", "settings", "mail_server",
			map[string]any{"host": in.Host, "port": in.Port, "security": in.Security, "from": in.From})
	})
	if err != nil {
		return err
	}
	c.Mailer.Override(in.config())
	return nil
}

// ClearMailServer removes the panel's mail server: the configuration's smtp.*
// applies again (owner only).
func (c *Service) ClearMailServer(ctx context.Context, a *core.Actor) error {
	if err := ownerOnly(a); err != nil {
		return err
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteMailSettings(ctx); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "mail_server.cleared", "settings", "mail_server", nil)
	})
	if err != nil {
		return err
	}
	c.Mailer.Override(nil)
	return nil
}

// MailTestResult is the outcome of a test message: Reason is the mailer's short
// code (connection_failed, smtp_status: 535, mail_disabled, address_invalid, ...)
// and Detail the server's own words (addresses hidden); both empty on success.
type MailTestResult struct {
	OK             bool
	Reason, Detail string
}

// SendTestMail sends a test message to the signed-in owner's own address and
// records the outcome (a success completes the checklist's sending step).
func (c *Service) SendTestMail(ctx context.Context, a *core.Actor, to string) (MailTestResult, error) {
	if err := ownerOnly(a); err != nil {
		return MailTestResult{}, err
	}
	if !core.ValidEmail(to) {
		return MailTestResult{}, core.Invalid("email")
	}
	text := "This is a test message from reviewd.\n\nYour mail server works: invitations, reminders and alerts can be sent.\n\n" +
		"Bu, reviewd'nin gönderdiği bir deneme iletisidir. E-posta sunucunuz çalışıyor.\n"
	var res MailTestResult
	_, err := c.Mailer.Send(ctx, mail.Message{To: to, Subject: "reviewd: test message", Text: text})
	if err != nil {
		var se *mail.SendError
		if !errors.As(err, &se) {
			return res, err
		}
		res.Reason = se.Reason
		if se.Err != nil && !errors.Is(se.Err, mail.ErrDisabled) {
			res.Detail = strings.TrimPrefix(se.Error(), "mail: send: "+se.Reason+": ")
		}
	} else {
		res.OK = true
	}
	errText := res.Reason
	if res.Detail != "" {
		errText += ": " + res.Detail
	}
	if len(errText) > 500 {
		errText = errText[:500]
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.PutMailTest(ctx, res.OK, errText); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "mail_server.tested", "settings", "mail_server", map[string]any{"ok": res.OK, "reason": res.Reason})
	})
	return res, err
}
