package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/jobs"
)

func newJobsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "jobs", Short: "list background jobs or run one now"}
	cmd.AddCommand(newJobsListCmd(e), newJobsRunCmd(e))
	return cmd
}

// jobRow is the JSON form of a job with its last run.
type jobRow struct {
	Name       string `json:"name"`
	Schedule   string `json:"schedule"`
	Trigger    string `json:"last_trigger"`
	StartedAt  any    `json:"last_started_at"`
	FinishedAt any    `json:"last_finished_at"`
	Outcome    string `json:"outcome"`
	Detail     string `json:"detail"`
}

func newJobsListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "job names, schedules, last run and outcome",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			runner := buildRunner(a)
			last, err := a.DB.Read().LastJobRuns(cmd.Context())
			if err != nil {
				return err
			}
			rows := []jobRow{}
			for _, n := range runner.Names() {
				r := last[n]
				rows = append(rows, jobRow{Name: n, Schedule: runner.Schedule(n), Trigger: r.Trigger, StartedAt: rfc3339(r.StartedAt),
					FinishedAt: rfc3339(r.FinishedAt), Outcome: r.Outcome, Detail: r.Detail})
			}
			return e.print(cmd, rows, func(w io.Writer) {
				t := newTable(w, "NAME", "SCHEDULE", "LAST START", "LAST END", "OUTCOME", "DETAIL")
				for _, r := range rows {
					l := last[r.Name]
					t.row(r.Name, r.Schedule, textTime(l.StartedAt), textTime(l.FinishedAt), r.Outcome, r.Detail)
				}
				t.flush()
			})
		}),
	}
}

func newJobsRunCmd(e *env) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "run one job once, now, as if the time were --now",
		Args:  cobra.ExactArgs(1),
		RunE: e.withApp(func(cmd *cobra.Command, args []string, a *app.App) error {
			now := a.DB.Now()
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return fmt.Errorf("--now: %q is not an RFC 3339 time", at)
				}
				now = t.UTC()
			}
			runner := buildRunner(a)
			run, err := runner.RunNow(cmd.Context(), args[0], now, "console")
			var unknown jobs.ErrUnknownJob
			if errors.As(err, &unknown) {
				return fmt.Errorf("%w (jobs: %s)", err, strings.Join(runner.Names(), ", "))
			}
			if run.ID == 0 && err != nil {
				return err
			}
			out := map[string]any{"name": run.Job, "trigger": run.Trigger, "outcome": run.Outcome, "detail": run.Detail, "now": now.Format(time.RFC3339)}
			if perr := e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "%s: %s (%s)\n", run.Job, run.Outcome, run.Detail)
			}); perr != nil {
				return perr
			}
			if err != nil {
				return fmt.Errorf("job %s failed: %w", run.Job, err)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&at, "now", "", "run as if the time were this RFC 3339 time")
	return cmd
}
