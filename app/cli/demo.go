package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/channels"
)

// demoDir is the data folder of `reviewd demo` unless --data is given.
const demoDir = "./demo-data"

// demoFile keeps what the first demo start printed, so later starts print it again.
const demoFile = "demo.json"

// demoProducts are the product codes of the demo's product pages (demo_seed.go).
func demoProducts() []string {
	out := make([]string, len(demoPages))
	for i, p := range demoPages {
		out[i] = p.code
	}
	return out
}

// demoChannel is one channel of the demo brand with its per-channel credentials.
type demoChannel struct {
	Code            string `json:"code"`
	Market          string `json:"market"`
	Language        string `json:"language"`
	ServerKeyID     string `json:"server_key_id"`
	ServerKey       string `json:"server_key"`
	SiteKeyID       string `json:"site_key_id"`
	SiteKey         string `json:"site_key"`
	SigningID       string `json:"signing_password_id"`
	SigningPassword string `json:"signing_password"`
	// TryOrder and TryEmail are a delivered order nobody has reviewed yet: enter
	// them in the product page's order check to try the writing flow.
	TryOrder string `json:"try_order"`
	TryEmail string `json:"try_email"`
}

// demoInfo is what seedDemo created; it is stored in demo-data/demo.json (0600).
type demoInfo struct {
	CreatedAt string        `json:"created_at"`
	Brand     string        `json:"brand"`
	Channels  []demoChannel `json:"channels"`
	APIKeyID  string        `json:"api_key_id"`
	APIKey    string        `json:"api_key"`
	Username  string        `json:"username"`
	Password  string        `json:"password"`
	Products  []string      `json:"products"`
	// Catalog lists the seeded product pages per channel.
	Catalog []demoProduct `json:"catalog"`
	// Reused is true when the data folder already held a demo brand.
	Reused bool `json:"-"`
}

func newDemoCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "create (or reuse) ./demo-data with a demo brand, print its addresses and serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f := cmd.Flags().Lookup("data"); f != nil && !f.Changed {
				if err := cmd.Flags().Set("data", demoDir); err != nil {
					return err
				}
			}
			a, err := e.open(cmd)
			if err != nil {
				return err
			}
			defer a.Close()
			listen := a.Config.Listen
			if f := cmd.Flags().Lookup("listen"); f != nil && f.Changed {
				listen = f.Value.String()
			}
			if !isLoopbackListen(listen) {
				// The demo's pretend store hands out writing tokens to anyone who asks.
				return fmt.Errorf("demo listens only on a loopback address (127.0.0.1, ::1 or localhost), not %q: its pretend store mints writing tokens without sign-in", listen)
			}
			// Unless public_url is set, a demo on a loopback address is addressed as
			// localhost: the demo channels' verified domain, so the pages work.
			local := a.Config.PublicURL == "http://"+a.Config.Listen && isLoopbackListen(a.Config.Listen)
			if local {
				_, port, _ := net.SplitHostPort(a.Config.Listen)
				a.Config.PublicURL = "http://localhost:" + port
				a.SetPublicURL(a.Config.PublicURL)
			}
			info, err := seedDemo(cmd.Context(), a)
			if err != nil {
				return err
			}
			surface := &demoSurface{info: info, base: a.Config.PublicURL, db: a.DB, acc: a.Access, read: a.Read, buyer: a.Buyer}
			return runServer(cmd, a, func(addr net.Addr) {
				if strings.HasSuffix(surface.base, ":0") {
					surface.base = "http://" + addr.String()
					if local {
						_, port, _ := net.SplitHostPort(addr.String())
						surface.base = "http://localhost:" + port
						a.SetPublicURL(surface.base)
					}
				}
				printDemo(cmd.OutOrStdout(), a.Config.DataDir, surface.base, info)
			}, surface)
		},
	}
	cmd.Flags().String("listen", "", "address to bind (listen)")
	return cmd
}

// isLoopbackListen reports whether a listen address is reachable from this machine
// only (an empty host or 0.0.0.0 means every interface, so it is not).
func isLoopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func printDemo(w io.Writer, dir, base string, info demoInfo) {
	state := "created"
	if info.Reused {
		state = "reused"
	}
	fmt.Fprintf(w, "reviewd demo (%s data folder %s)\n\n", state, dir)
	fmt.Fprintf(w, "  demo product page  %s/demo/\n", base)
	fmt.Fprintf(w, "  web panel          %s/panel/ (sign in as %s)\n", base, info.Username)
	fmt.Fprintf(w, "  management API     %s/admin/v1/ (panel session: POST %s/admin/v1/session)\n", base, base)
	fmt.Fprintf(w, "  panel sign-in      %s / %s\n", info.Username, info.Password)
	fmt.Fprintf(w, "  admin API key      %s (%s)\n", info.APIKey, info.APIKeyID)
	for _, c := range info.Channels {
		fmt.Fprintf(w, "  channel %-10s market %s, language %s\n", c.Code, c.Market, c.Language)
		fmt.Fprintf(w, "    server key       %s\n", c.ServerKey)
		fmt.Fprintf(w, "    site key         %s\n", c.SiteKey)
		fmt.Fprintf(w, "    signing password %s (id %s)\n", c.SigningPassword, c.SigningID)
		if c.TryOrder != "" {
			fmt.Fprintf(w, "    order to review  %s, e-mail %s (not reviewed yet: try the writing flow)\n", c.TryOrder, c.TryEmail)
		}
	}
	fmt.Fprintf(w, "\nThese credentials are kept in %s; stop with Ctrl-C.\n", filepath.Join(dir, demoFile))
}

// seedDemo creates the demo brand in a's data folder, or loads it when an earlier
// start created it: channels, keys, the panel user, then products with delivered
// orders, reviews, photos, votes, questions and answers (seedDemoContent). Only a
// complete seed writes demo.json.
func seedDemo(ctx context.Context, a *app.App) (demoInfo, error) {
	path := filepath.Join(a.Config.DataDir, demoFile)
	var info demoInfo
	raw, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(raw, &info); err != nil {
			return info, fmt.Errorf("demo: %s: %w", path, err)
		}
		info.Reused = true
		return info, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return info, fmt.Errorf("demo: %w", err)
	}
	chs, err := a.DB.Read().ListChannels(ctx)
	if err != nil {
		return info, err
	}
	if len(chs) > 0 {
		return info, fmt.Errorf("demo: %s holds data but no %s; remove the folder to start a fresh demo", a.Config.DataDir, demoFile)
	}

	c, actor := a.Passwords, core.Console()
	info = demoInfo{CreatedAt: time.Now().UTC().Format(time.RFC3339), Brand: "Demo Ceramics", Username: "demo", Products: demoProducts()}
	for _, ch := range []struct{ code, market, lang, label, zone string }{
		{"demo-tr", "TR", "tr", "Demo Türkiye", "Europe/Istanbul"},
		{"demo-en", "GB", "en", "Demo United Kingdom", "Europe/London"},
	} {
		if _, err := a.Domain.Channels.CreateChannel(ctx, actor, channels.NewChannel{Code: ch.code, Market: ch.market, Language: ch.lang,
			Label: ch.label, BrandName: info.Brand, Domains: []string{"localhost"}, TimeZone: ch.zone}); err != nil {
			return info, demoErr("channel", err)
		}
		dc := demoChannel{Code: ch.code, Market: ch.market, Language: ch.lang}
		srv, err := a.Access.CreateKey(ctx, actor, access.NewKey{Kind: access.KindServer, ChannelCode: ch.code, Label: "demo server"})
		if err != nil {
			return info, demoErr("server key", err)
		}
		site, err := a.Access.CreateKey(ctx, actor, access.NewKey{Kind: access.KindSite, ChannelCode: ch.code, Label: "demo site"})
		if err != nil {
			return info, demoErr("site key", err)
		}
		pw, err := c.CreatePassword(ctx, actor, core.PurposeSigning, ch.code)
		if err != nil {
			return info, demoErr("signing password", err)
		}
		dc.ServerKeyID, dc.ServerKey = srv.PublicID, srv.Secret
		dc.SiteKeyID, dc.SiteKey = site.PublicID, site.Secret
		dc.SigningID, dc.SigningPassword = pw.ID, pw.Secret
		info.Channels = append(info.Channels, dc)
	}
	api, err := a.Access.CreateKey(ctx, actor, access.NewKey{Kind: access.KindAPI, Scopes: access.APIScopes, Label: "demo api", AllowWrite: true})
	if err != nil {
		return info, demoErr("api key", err)
	}
	info.APIKeyID, info.APIKey = api.PublicID, api.Secret
	for {
		info.Password = core.RandomToken(15) // 20 characters
		if access.CheckPasswordStrength(info.Password, info.Username, info.Username) == nil {
			break
		}
	}
	if _, err := a.Access.CreateUser(ctx, actor, access.NewUser{Username: info.Username, Email: "demo@localhost.example",
		Role: "owner", Password: info.Password}); err != nil {
		return info, demoErr("user", err)
	}
	if err := seedDemoContent(ctx, a, &info); err != nil {
		return info, err
	}
	if err := seedDemoTeam(ctx, a, &info); err != nil {
		return info, err
	}
	out, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return info, fmt.Errorf("demo: %w", err)
	}
	return info, nil
}

func demoErr(what string, err error) error {
	return fmt.Errorf("demo: %s: %w", what, consoleErr(err))
}
