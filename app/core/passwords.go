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
