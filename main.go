// Command reviewd is a self-hosted product-review service: one binary over one
// SQLite file. The commands live in app/cli.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"reviewd/app/cli"
)

//go:embed schema.sql
var schemaSQL string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cli.NewRoot(schemaSQL).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "reviewd:", err)
		stop()
		os.Exit(1)
	}
}
