package core

import (
	"context"
	"errors"

	"reviewd/store"
)

// Password purposes.
const (
	PurposeSigning      = "signing"
	PurposeMailEvents   = "mail_events"
	PurposeNotification = "notification"
)

// CreatedPassword is a password as shown once, at creation.
type CreatedPassword struct {
	store.Password
	Secret  string
	Channel string
}

// Passwords makes and opens the signing, mail-event and notification passwords:
// the console's secret command and the brand's notification password use it.
type Passwords struct {
	DB       *store.DB
	Keys     *Keyring
	Recorder *Recorder
}

// CreatePassword makes a signing, mail-event or notification password, stored
// encrypted with the master key. Signing passwords belong to a channel. A new
// notification password replaces the previous one.
func (c *Passwords) CreatePassword(ctx context.Context, a *Actor, purpose, channelCode string) (CreatedPassword, error) {
	p := store.Password{ID: "pw_" + RandomHex(8), Purpose: purpose}
	var channel store.Channel
	switch purpose {
	case PurposeSigning:
		if channelCode == "" {
			return CreatedPassword{}, Invalid("channel_required")
		}
		fallthrough
	case PurposeMailEvents, PurposeNotification:
		if channelCode != "" {
			ch, err := c.DB.Read().ChannelByCode(ctx, channelCode)
			if errors.Is(err, store.ErrNotFound) {
				return CreatedPassword{}, Invalid("channel")
			} else if err != nil {
				return CreatedPassword{}, err
			}
			channel = ch
			p.ChannelID = ch.ID
		}
	case "":
		return CreatedPassword{}, Invalid("purpose_required")
	default:
		return CreatedPassword{}, Invalid("purpose")
	}
	secret := RandomToken(32)
	p.SecretEnc = c.Keys.Encrypt([]byte(secret))
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if purpose == PurposeNotification {
			if err := tx.RevokePasswords(ctx, purpose); err != nil {
				return err
			}
		}
		var err error
		if p, err = tx.CreatePassword(ctx, p); err != nil {
			return err
		}
		return c.Recorder.Record(ctx, tx, a, "password.created", "password", p.ID, map[string]any{"purpose": purpose, "channel": channel.Code})
	})
	return CreatedPassword{Password: p, Secret: secret, Channel: channel.Code}, err
}

// PasswordSecret decrypts a stored password.
func (c *Passwords) PasswordSecret(p store.Password) ([]byte, error) {
	return c.Keys.Decrypt(p.SecretEnc)
}

// ManagedPurpose tells whether the management API lists, makes and revokes passwords
// of this purpose (CONTRACT, "Management resources": signing and mail_events; the
// notification password has its own settings route).
func ManagedPurpose(purpose string) bool {
	return purpose == PurposeSigning || purpose == PurposeMailEvents
}

// ListedPassword is a password row without its secret.
type ListedPassword struct {
	store.Password
	Channel string
}

// ListPasswords lists the signing and mail-event passwords, newest first, revoked
// ones included; never their secret.
func (c *Passwords) ListPasswords(ctx context.Context) ([]ListedPassword, error) {
	q := c.DB.Read()
	ps, err := q.ListPasswords(ctx, PurposeSigning, PurposeMailEvents)
	if err != nil {
		return nil, err
	}
	codes := map[int64]string{}
	out := make([]ListedPassword, 0, len(ps))
	for _, p := range ps {
		if _, ok := codes[p.ChannelID]; !ok && p.ChannelID != 0 {
			ch, err := q.ChannelByID(ctx, p.ChannelID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			codes[p.ChannelID] = ch.Code
		}
		out = append(out, ListedPassword{Password: p, Channel: codes[p.ChannelID]})
	}
	return out, nil
}

// RevokePassword revokes a signing or mail-event password at once: requests signed
// with it answer secret_unknown from then on, as for an unknown password (there is no
// grace period, as when a new notification password replaces the old one). The row
// stays listed with its revoked_at. An unknown, already revoked or notification
// password is not found.
func (c *Passwords) RevokePassword(ctx context.Context, a *Actor, id string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		p, err := tx.PasswordByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (!ManagedPurpose(p.Purpose) || !p.RevokedAt.IsZero())) {
			return ErrNotFound
		} else if err != nil {
			return err
		}
		if err := tx.RevokePassword(ctx, id); err != nil {
			return err
		}
		return c.Recorder.Record(ctx, tx, a, "password.revoked", "password", id, map[string]any{"purpose": p.Purpose})
	})
}
