package cli_test

import (
	"context"
	"testing"

	"reviewd/store"
)

// TestChannelAllowanceCommands: the operator reads and sets the channel allowance,
// lists channel requests and grants the open one (the allowance grows by one).
func TestChannelAllowanceCommands(t *testing.T) {
	dir := t.TempDir()
	var got map[string]int
	mustJSON(t, dir, &got, "channel", "allowance")
	if got["allowance"] != 3 {
		t.Fatalf("default allowance = %v", got)
	}
	mustJSON(t, dir, &got, "channel", "allowance", "5")
	if got["allowance"] != 5 {
		t.Fatalf("set allowance = %v", got)
	}
	failRun(t, dir, "invalid: allowance", "channel", "allowance", "1001")
	failRun(t, dir, "not a number", "channel", "allowance", "many")

	var rows []map[string]any
	mustJSON(t, dir, &rows, "channel", "requests")
	if len(rows) != 0 {
		t.Fatalf("requests = %v", rows)
	}
	// A brand's request, as POST /admin/v1/channel-requests stores it.
	db := openDB(t, dir)
	ctx := context.Background()
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.CreateChannelRequest(ctx, store.ChannelRequest{Market: "NL", Label: "Netherlands", Actor: "ayla"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mustJSON(t, dir, &rows, "channel", "requests")
	if len(rows) != 1 || rows[0]["state"] != "open" || rows[0]["market"] != "NL" {
		t.Fatalf("requests = %v", rows)
	}
	id := rows[0]["id"].(string)
	mustJSON(t, dir, &rows, "channel", "requests", "grant", id)
	if rows[0]["state"] != "granted" {
		t.Fatalf("after grant = %v", rows)
	}
	mustJSON(t, dir, &got, "channel", "allowance")
	if got["allowance"] != 6 {
		t.Fatalf("allowance after grant = %v", got)
	}
	failRun(t, dir, "not_found", "channel", "requests", "grant", id)
	failRun(t, dir, "usage", "channel", "requests", "give", id)
}
