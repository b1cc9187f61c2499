package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/tlog"

	"reviewd/app"
	"reviewd/app/core/transparency"
)

func newTransparencyCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "transparency", Short: "the public transparency log: its key and an audit of a log"}
	cmd.AddCommand(newTransparencyKeyCmd(e), newTransparencyVerifyCmd(e))
	return cmd
}

func newTransparencyKeyCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "key",
		Short: "print the log's public key (note verifier format)",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			k, err := a.Transparency.VerifierKey(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(cmd, map[string]string{"key": k}, func(w io.Writer) { fmt.Fprintln(w, k) })
		}),
	}
}

// auditWindow is the report window verify asks for without --from and --to: the
// whole history.
const auditFrom = "2000-01-01T00:00:00Z"

func newTransparencyVerifyCmd(e *env) *cobra.Command {
	var base, stateFile, key, from, to string
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "fetch a log's checkpoint and entries, rebuild the tree, check the signature, the consistency with the kept checkpoint and the report",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				to = time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second).Format(time.RFC3339)
			}
			a := &auditor{base: strings.TrimRight(base, "/"), c: &http.Client{Timeout: 60 * time.Second}, warn: cmd.ErrOrStderr()}
			res, err := a.verify(cmd.Context(), stateFile, key, from, to)
			if err != nil {
				return err
			}
			return e.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "verified %s: %d entries, root %s", a.base, res.Size, res.Root)
				if res.ConsistentWith > 0 {
					fmt.Fprintf(w, ", consistent with the kept checkpoint of %d", res.ConsistentWith)
				}
				fmt.Fprintf(w, "; report of %d entries recomputed\n", res.ReportEntries)
			})
		},
	}
	cmd.Flags().StringVar(&base, "url", "", "the log's installation address (its public_url)")
	cmd.Flags().StringVar(&stateFile, "state", "", "file keeping the key and the last checkpoint verified (created when missing)")
	cmd.Flags().StringVar(&key, "key", "", "the log's verifier key (reviewd transparency key); default: the one kept in --state, else the one the log serves")
	cmd.Flags().StringVar(&from, "from", auditFrom, "start of the report window (RFC 3339)")
	cmd.Flags().StringVar(&to, "to", "", "end of the report window (RFC 3339; default a day from now)")
	_ = cmd.MarkFlagRequired("url")
	return cmd
}

// auditResult is what verify prints.
type auditResult struct {
	Size           int64  `json:"size"`
	Root           string `json:"root"`
	ConsistentWith int64  `json:"consistent_with"`
	ReportEntries  int64  `json:"report_entries"`
}

// auditor reads one log over HTTP.
type auditor struct {
	base string
	c    *http.Client
	warn io.Writer
}

// get reads one answer; past the log's per-IP limit (429) it waits and asks
// again, as an auditor reading a large log will be.
func (a *auditor) get(ctx context.Context, path string) ([]byte, error) {
	for try := 0; ; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
		if err != nil {
			return nil, err
		}
		res, err := a.c.Do(req)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		switch {
		case res.StatusCode == http.StatusTooManyRequests && try < 60:
			wait := 5 * time.Second
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			continue
		case res.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("transparency: GET %s: status %d", path, res.StatusCode)
		}
		return b, nil
	}
}

// auditFetchers is how many entry pages verify asks for at once: enough to keep
// the network busy while it hashes, few enough to stay a polite client.
const auditFetchers = 4

// entriesPage is one page of entries as fetched.
type entriesPage struct {
	data []byte
	want int64
	err  error
}

// pages fetches the entries 0 to n-1 a page of transparency.MaxEntries at a time,
// auditFetchers pages at once, and hands them over in order. stop ends the
// fetching early.
func (a *auditor) pages(ctx context.Context, n int64) (<-chan entriesPage, func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan entriesPage)
	slots := make(chan chan entriesPage, auditFetchers)
	go func() {
		defer close(slots)
		for start := int64(0); start < n; start += transparency.MaxEntries {
			end := min(start+transparency.MaxEntries, n)
			one := make(chan entriesPage, 1)
			select {
			case slots <- one:
			case <-ctx.Done():
				return
			}
			go func() {
				b, err := a.get(ctx, "/v1/transparency/entries?start="+strconv.FormatInt(start, 10)+"&end="+strconv.FormatInt(end, 10))
				one <- entriesPage{data: b, want: end - start, err: err}
			}()
		}
	}()
	go func() {
		defer close(out)
		for one := range slots {
			select {
			case out <- <-one:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, cancel
}

func (a *auditor) verify(ctx context.Context, stateFile, key, from, to string) (auditResult, error) {
	var st transparency.AuditState
	if stateFile != "" {
		b, err := os.ReadFile(stateFile)
		switch {
		case err == nil:
			if err := json.Unmarshal(b, &st); err != nil {
				return auditResult{}, fmt.Errorf("transparency: state %s: %v", stateFile, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return auditResult{}, err
		}
	}
	switch {
	case key != "" && st.Key != "" && key != st.Key:
		return auditResult{}, errors.New("transparency: --key differs from the key kept in the state file")
	case key == "" && st.Key != "":
		key = st.Key
	case key == "":
		b, err := a.get(ctx, "/v1/transparency/key")
		if err != nil {
			return auditResult{}, err
		}
		key = strings.TrimSpace(string(b))
		fmt.Fprintf(a.warn, "trusting the key the log serves on first use: %s\n", key)
	}

	signed, err := a.get(ctx, "/v1/transparency/checkpoint")
	if err != nil {
		return auditResult{}, err
	}
	tree, err := transparency.OpenCheckpoint(key, signed)
	if err != nil {
		return auditResult{}, err
	}

	fromT, toT, err := transparency.ParseWindow(from, to, time.Now())
	if err != nil {
		return auditResult{}, fmt.Errorf("transparency: --from or --to: %v", err)
	}
	counter := transparency.NewReportCounter(fromT, toT, tree.N)
	var built transparency.AuditTree
	pages, stop := a.pages(ctx, tree.N)
	defer stop()
	for built.Size() < tree.N {
		start := built.Size()
		pg, ok := <-pages
		if !ok {
			return auditResult{}, ctx.Err()
		}
		if pg.err != nil {
			return auditResult{}, pg.err
		}
		recs, es, err := transparency.ParseRecords(pg.data, start)
		if err != nil {
			return auditResult{}, err
		}
		if len(recs) != int(pg.want) {
			return auditResult{}, fmt.Errorf("transparency: the log serves %d entries from %d, its checkpoint has %d", len(recs), start, tree.N)
		}
		for i, r := range recs {
			if err := built.Add(r); err != nil {
				return auditResult{}, err
			}
			counter.Add(es[i])
		}
	}
	if built.Size() != tree.N {
		return auditResult{}, fmt.Errorf("transparency: the log served %d entries, its checkpoint has %d", built.Size(), tree.N)
	}
	root, err := built.Root(tree.N)
	if err != nil {
		return auditResult{}, err
	}
	if root != tree.Hash {
		return auditResult{}, fmt.Errorf("transparency: the entries hash to %s, the signed checkpoint of %d says %s", root, tree.N, tree.Hash)
	}

	res := auditResult{Size: tree.N, Root: tree.Hash.String()}
	if st.Size > 0 {
		if st.Size > tree.N {
			return auditResult{}, fmt.Errorf("transparency: the log shrank from %d entries (kept checkpoint) to %d", st.Size, tree.N)
		}
		kept, err := tlog.ParseHash(st.Root)
		if err != nil {
			return auditResult{}, fmt.Errorf("transparency: state root: %v", err)
		}
		old, err := built.Root(st.Size)
		if err != nil {
			return auditResult{}, err
		}
		if old != kept {
			return auditResult{}, fmt.Errorf("transparency: history rewritten: the first %d entries hash to %s, the kept checkpoint says %s", st.Size, old, kept)
		}
		var p transparency.ConsistencyProof
		b, err := a.get(ctx, "/v1/transparency/proof/consistency?from="+strconv.FormatInt(st.Size, 10)+"&to="+strconv.FormatInt(tree.N, 10))
		if err != nil {
			return auditResult{}, err
		}
		if err := json.Unmarshal(b, &p); err != nil {
			return auditResult{}, fmt.Errorf("transparency: consistency proof: %v", err)
		}
		if err := tlog.CheckTree(tlog.TreeProof(p.Hashes), tree.N, tree.Hash, st.Size, kept); err != nil {
			return auditResult{}, fmt.Errorf("transparency: the log's consistency proof from %d to %d fails: %v", st.Size, tree.N, err)
		}
		res.ConsistentWith = st.Size
	}

	b, err := a.get(ctx, "/v1/transparency/report?from="+url.QueryEscape(from)+"&to="+url.QueryEscape(to))
	if err != nil {
		return auditResult{}, err
	}
	var served transparency.Report
	if err := json.Unmarshal(b, &served); err != nil {
		return auditResult{}, fmt.Errorf("transparency: report: %v", err)
	}
	if served.Size != tree.N {
		return auditResult{}, fmt.Errorf("transparency: the report counts a log of %d entries, the checkpoint has %d (a new checkpoint was signed meanwhile: run again)", served.Size, tree.N)
	}
	mine := counter.Report()
	if !reflect.DeepEqual(mine, served) {
		return auditResult{}, fmt.Errorf("transparency: the report the log serves differs from the one its entries give")
	}
	res.ReportEntries = mine.Entries

	if stateFile != "" {
		st = transparency.AuditState{URL: a.base, Key: key, Size: tree.N, Root: tree.Hash.String(), Checkpoint: string(signed),
			CheckedAt: time.Now().UTC().Format(time.RFC3339)}
		b, _ := json.MarshalIndent(st, "", "  ")
		tmp := filepath.Join(filepath.Dir(stateFile), "."+filepath.Base(stateFile)+".tmp")
		if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
			return auditResult{}, err
		}
		if err := os.Rename(tmp, stateFile); err != nil {
			return auditResult{}, err
		}
	}
	return res, nil
}
