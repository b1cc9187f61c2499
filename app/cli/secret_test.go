package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"reviewd/app/core"
)

func TestSecretCreate(t *testing.T) {
	dir := t.TempDir()
	createChannel(t, dir, "tr-main", "TR", "tr")
	failRun(t, dir, "invalid: channel_required", "secret", "create", "--purpose", "signing")
	failRun(t, dir, "invalid: purpose", "secret", "create", "--purpose", "root")
	failRun(t, dir, "invalid: channel", "secret", "create", "--purpose", "signing", "--channel", "nope")

	for _, tc := range []struct {
		args    []string
		purpose string
		channel any
	}{
		{[]string{"--purpose", "signing", "--channel", "tr-main"}, "signing", "tr-main"},
		{[]string{"--purpose", "mail_events"}, "mail_events", nil},
		{[]string{"--purpose", "notification"}, "notification", nil},
	} {
		var p map[string]any
		mustJSON(t, dir, &p, append([]string{"secret", "create"}, tc.args...)...)
		id, _ := p["id"].(string)
		pw, _ := p["password"].(string)
		if len(p) != 4 || !strings.HasPrefix(id, "pw_") || len(pw) < 40 || p["purpose"] != tc.purpose || p["channel"] != tc.channel {
			t.Fatalf("secret = %v", p)
		}

		// Stored encrypted with the master key, never as plain text.
		db := openDB(t, dir)
		row, err := db.Read().PasswordByID(context.Background(), id)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(row.SecretEnc, []byte(pw)) {
			t.Fatalf("password stored as plain text")
		}
		keys, err := core.LoadMasterKey(dir)
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := keys.Decrypt(row.SecretEnc); err != nil || string(plain) != pw {
			t.Fatalf("stored password does not decrypt to the printed one: %v", err)
		}
	}
}
