package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/app/core"
	"reviewd/app/core/channels"
	"reviewd/store"
)

func newChannelCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "channel", Short: "create and list sales channels"}
	cmd.AddCommand(newChannelCreateCmd(e), newChannelListCmd(e), newChannelAllowanceCmd(e), newChannelRequestsCmd(e))
	return cmd
}

// channelRow is the JSON form of a channel.
type channelRow struct {
	Code       string   `json:"code"`
	Label      string   `json:"label"`
	Market     string   `json:"market"`
	Language   string   `json:"language"`
	BrandName  string   `json:"brand_name"`
	LandingURL string   `json:"landing_url"`
	PrivacyURL string   `json:"privacy_url"`
	Domains    []string `json:"domains"`
	Active     bool     `json:"active"`
}

func toChannelRow(c store.Channel) channelRow {
	d := c.Domains
	if d == nil {
		d = []string{}
	}
	return channelRow{Code: c.Code, Label: c.Label, Market: c.Market, Language: c.Language, BrandName: c.BrandName,
		LandingURL: c.LandingURL, PrivacyURL: c.PrivacyURL, Domains: d, Active: c.Active}
}

func newChannelCreateCmd(e *env) *cobra.Command {
	var in channels.NewChannel
	cmd := &cobra.Command{
		Use:   "create",
		Short: "create a channel; every --domain is recorded as verified",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			ch, err := a.Domain.Channels.CreateChannel(cmd.Context(), core.Console(), in)
			if err != nil {
				return consoleErr(err)
			}
			row := toChannelRow(ch)
			return e.print(cmd, row, func(w io.Writer) { channelTable(w, []channelRow{row}) })
		}),
	}
	f := cmd.Flags()
	f.StringVar(&in.Code, "code", "", "channel code")
	f.StringVar(&in.Market, "market", "", "ISO 3166 alpha-2 market (TR)")
	f.StringVar(&in.Language, "language", "", "tr or en")
	f.StringVar(&in.Label, "label", "", "label shown in the panel")
	f.StringVar(&in.BrandName, "brand-name", "", "brand name shown to customers")
	f.StringArrayVar(&in.Domains, "domain", nil, "verified domain of the channel (repeatable)")
	f.StringVar(&in.LandingURL, "landing-url", "", "review landing page address")
	f.StringVar(&in.PrivacyURL, "privacy-url", "", "privacy notice address (https)")
	for _, n := range []string{"code", "market", "language", "label", "brand-name", "domain"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

func newChannelListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list channels",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			chs, err := a.DB.Read().ListChannels(cmd.Context())
			if err != nil {
				return err
			}
			rows := make([]channelRow, 0, len(chs))
			for _, c := range chs {
				rows = append(rows, toChannelRow(c))
			}
			return e.print(cmd, rows, func(w io.Writer) { channelTable(w, rows) })
		}),
	}
}

func channelTable(w io.Writer, rows []channelRow) {
	t := newTable(w, "CODE", "MARKET", "LANGUAGE", "LABEL", "BRAND", "DOMAINS", "ACTIVE")
	for _, r := range rows {
		t.row(r.Code, r.Market, r.Language, r.Label, r.BrandName, strings.Join(r.Domains, ","), fmt.Sprint(r.Active))
	}
	t.flush()
}

// The helpers below are shared by every command of this package that prints tables
// or reports domain errors.

// consoleErr turns a domain error into a one-line console message: "invalid:
// scopes_required" instead of the HTTP form "400 invalid / scopes_required".
func consoleErr(err error) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		if ce.Detail == "" || ce.Detail == ce.Code {
			return errors.New(ce.Code)
		}
		return fmt.Errorf("%s: %s", ce.Code, ce.Detail)
	}
	return err
}

// table is a tab-aligned text table.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, head ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(head...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		}
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() { _ = t.tw.Flush() }

// rfc3339 formats a time for output; the zero time is nil (JSON null).
func rfc3339(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// textTime formats a time for a table; the zero time is empty.
func textTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
