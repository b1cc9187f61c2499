package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"reviewd/app/core"
	"reviewd/app/core/access"
)

func newUserCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "panel users"}
	cmd.AddCommand(newUserCreateCmd(e), newUserUnlockCmd(e))
	return cmd
}

// userRow is the JSON form of a panel user (never the password hash).
type userRow struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt any    `json:"created_at"`
}

func newUserCreateCmd(e *env) *cobra.Command {
	var in access.NewUser
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "create a panel user; the password is read from standard input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !fromStdin {
				return errUsage("user create: the password is read from standard input; give --password-stdin")
			}
			pw, err := readPassword(cmd.InOrStdin())
			if err != nil {
				return err
			}
			in.Password = pw
			a, err := e.open(cmd)
			if err != nil {
				return err
			}
			defer a.Close()
			u, err := a.Access.CreateUser(cmd.Context(), core.Console(), in)
			if err != nil {
				return consoleErr(err)
			}
			row := userRow{ID: u.ID, Username: u.Username, Email: u.Email, Role: u.Role, CreatedAt: rfc3339(u.CreatedAt)}
			return e.print(cmd, row, func(w io.Writer) {
				t := newTable(w, "ID", "USERNAME", "EMAIL", "ROLE", "CREATED")
				t.row(fmt.Sprint(row.ID), row.Username, row.Email, row.Role, textTime(u.CreatedAt))
				t.flush()
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Username, "username", "", "sign-in name")
	f.StringVar(&in.Email, "email", "", "e-mail address")
	f.StringVar(&in.Role, "role", "", "owner, manager, moderator or viewer")
	f.BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input")
	for _, n := range []string{"username", "email", "role"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

// readPassword reads the first line of r without its line ending.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("read password: standard input is empty")
	}
	return line, nil
}

func newUserUnlockCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "unlock USERNAME",
		Short: "clear a panel user's sign-in lock (after too many wrong passwords or passcodes)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := e.open(cmd)
			if err != nil {
				return err
			}
			defer a.Close()
			n, err := a.Access.UnlockSignIn(cmd.Context(), core.Console(), args[0])
			if errors.Is(err, core.ErrNotFound) {
				return fmt.Errorf("user unlock: no panel user %q", args[0])
			}
			if err != nil {
				return consoleErr(err)
			}
			row := struct {
				Username        string `json:"username"`
				Unlocked        bool   `json:"unlocked"`
				FailuresCleared int    `json:"failures_cleared"`
			}{args[0], true, n}
			return e.print(cmd, row, func(w io.Writer) {
				t := newTable(w, "USERNAME", "UNLOCKED", "FAILURES CLEARED")
				t.row(row.Username, "yes", fmt.Sprint(n))
				t.flush()
			})
		},
	}
}
