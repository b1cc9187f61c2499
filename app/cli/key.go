package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/store"
)

func newKeyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "key", Short: "create, list and revoke server, site and admin API keys"}
	cmd.AddCommand(newKeyCreateCmd(e), newKeyListCmd(e), newKeyRevokeCmd(e))
	return cmd
}

// createdKeyOut is the JSON form of a new key; the only time its secret is shown.
type createdKeyOut struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Key     string   `json:"key"`
	Scopes  []string `json:"scopes"`
	Channel *string  `json:"channel"`
}

// keyRow is the JSON form of a listed key (never the secret).
type keyRow struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Channel    *string  `json:"channel"`
	Scopes     []string `json:"scopes"`
	Label      string   `json:"label"`
	Hint       string   `json:"hint"`
	CreatedAt  any      `json:"created_at"`
	RevokedAt  any      `json:"revoked_at"`
	LastUsedAt any      `json:"last_used_at"`
}

func splitScopes(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newKeyCreateCmd(e *env) *cobra.Command {
	var in access.NewKey
	var scopes string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "create a key and print its secret once",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			in.Scopes = splitScopes(scopes)
			in.AllowWrite = true // the operator may grant write
			k, err := a.Access.CreateKey(cmd.Context(), core.Console(), in)
			if err != nil {
				return consoleErr(err)
			}
			out := createdKeyOut{ID: k.PublicID, Kind: k.Kind, Key: k.Secret, Scopes: splitScopes(k.Scopes), Channel: optString(k.Channel)}
			return e.print(cmd, out, func(w io.Writer) {
				t := newTable(w, "ID", "KIND", "CHANNEL", "SCOPES", "KEY")
				t.row(out.ID, out.Kind, k.Channel, strings.Join(out.Scopes, ","), out.Key)
				t.flush()
				fmt.Fprintln(w, "The key is shown only now; store it safely.")
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&in.Kind, "kind", "", "server, site or api")
	f.StringVar(&in.ChannelCode, "channel", "", "channel code (server and site keys)")
	f.StringVar(&scopes, "scopes", "", "comma-separated api key scopes: read, moderate, export, write")
	f.StringVar(&in.Label, "label", "", "label shown in lists")
	_ = cmd.MarkFlagRequired("kind")
	return cmd
}

func newKeyListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list keys (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			q := a.DB.Read()
			keys, err := q.ListKeys(cmd.Context())
			if err != nil {
				return err
			}
			codes, err := channelCodes(cmd, q)
			if err != nil {
				return err
			}
			rows := make([]keyRow, 0, len(keys))
			for _, k := range keys {
				rows = append(rows, keyRow{ID: k.PublicID, Kind: k.Kind, Channel: optString(codes[k.ChannelID]),
					Scopes: splitScopes(k.Scopes), Label: k.Label, Hint: k.Hint, CreatedAt: rfc3339(k.CreatedAt),
					RevokedAt: rfc3339(k.RevokedAt), LastUsedAt: rfc3339(k.LastUsedAt)})
			}
			return e.print(cmd, rows, func(w io.Writer) {
				t := newTable(w, "ID", "KIND", "CHANNEL", "SCOPES", "LABEL", "HINT", "CREATED", "REVOKED", "LAST USED")
				for i, r := range rows {
					k := keys[i]
					t.row(r.ID, r.Kind, codes[k.ChannelID], strings.Join(r.Scopes, ","), r.Label, "…"+r.Hint,
						textTime(k.CreatedAt), textTime(k.RevokedAt), textTime(k.LastUsedAt))
				}
				t.flush()
			})
		}),
	}
}

func newKeyRevokeCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "revoke a key by its id",
		Args:  cobra.ExactArgs(1),
		RunE: e.withApp(func(cmd *cobra.Command, args []string, a *app.App) error {
			id := args[0]
			if err := a.Access.RevokeKey(cmd.Context(), core.Console(), id); errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("key %s: not found or already revoked", id)
			} else if err != nil {
				return consoleErr(err)
			}
			return e.print(cmd, map[string]any{"id": id, "revoked": true}, func(w io.Writer) {
				fmt.Fprintf(w, "key %s revoked\n", id)
			})
		}),
	}
}

// channelCodes maps channel ids to codes.
func channelCodes(cmd *cobra.Command, q *store.Q) (map[int64]string, error) {
	chs, err := q.ListChannels(cmd.Context())
	if err != nil {
		return nil, err
	}
	m := make(map[int64]string, len(chs))
	for _, c := range chs {
		m[c.ID] = c.Code
	}
	return m, nil
}
