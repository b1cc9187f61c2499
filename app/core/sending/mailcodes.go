package sending

import (
	"context"
	"encoding/base64"
	"errors"

	"reviewd/app/core"
	"reviewd/store"
)

// mailAccessCodeSetting is the settings key of the brand-wide access code carried in
// the mail-provider endpoint addresses; the value is the base64 of the code encrypted
// with the master key.
const mailAccessCodeSetting = "mail_events_access_code"

// MailProviders are the providers with their own mail-event endpoint.
var MailProviders = []string{"sendgrid", "mailgun", "postmark", "ses"}

// MailAccessCode returns the access code of the mail-provider endpoints, creating it
// (256 random bits) on first use. Two concurrent first calls agree on one code: the
// creation re-reads the setting inside the write transaction.
func (c *Service) MailAccessCode(ctx context.Context) (string, error) {
	code, err := c.loadMailAccessCode(ctx, c.DB.Read())
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return code, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var lerr error
		if code, lerr = c.loadMailAccessCode(ctx, tx.Q); !errors.Is(lerr, store.ErrNotFound) {
			return lerr
		}
		code = core.RandomToken(32)
		enc := base64.StdEncoding.EncodeToString(c.Keys.Encrypt([]byte(code)))
		if err := tx.SetSetting(ctx, mailAccessCodeSetting, enc); err != nil {
			return err
		}
		return c.Record(ctx, tx, core.System("mail-events"), "mail_events.access_code_created", "setting", mailAccessCodeSetting, nil)
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// CheckMailAccessCode reports whether code is the brand's mail-provider access code,
// comparing in constant time. Before a code exists every code is wrong.
func (c *Service) CheckMailAccessCode(ctx context.Context, code string) bool {
	want, err := c.loadMailAccessCode(ctx, c.DB.Read())
	if err != nil || want == "" {
		return false
	}
	return core.Equal(code, want)
}

func (c *Service) loadMailAccessCode(ctx context.Context, q *store.Q) (string, error) {
	var enc string
	if err := q.Setting(ctx, mailAccessCodeSetting, &enc); err != nil {
		return "", err
	}
	sealed, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", core.ErrUndecryptable
	}
	plain, err := c.Keys.Decrypt(sealed)
	if err != nil {
		return "", err
	}
	return string(plain), nil
}
