// Command admin manages accounts and API keys on the embedded store (the one
// `make run` uses) or on DynamoDB (DynamoDB Local or a deployed stack):
//
//	go run ./infra/admin accounts create --name "Shop" --mode test
//	go run ./infra/admin --store dynamodb --endpoint http://127.0.0.1:8000 --table-prefix paygate-dev- keys list --account ID
//
// Each file of this package registers its commands from init() (see
// register), so other teams add theirs (deposits, catalog) in their own file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// action runs a command once its flags are parsed.
type action func(ctx context.Context, e *env) error

// command is one admin command, e.g. "keys create".
type command struct {
	Name    string // one or two words: "tables create"
	Summary string
	// Flags declares the command's own flags on fs and returns the action,
	// which reads the parsed values through the closure.
	Flags func(fs *flag.FlagSet) action
}

var commands = map[string]command{}

// register adds a command; call it from init().
func register(c command) {
	if _, dup := commands[c.Name]; dup {
		panic("admin: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// usageError is a mistake in the command line: exit code 2 and the usage.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// required reports a missing mandatory flag as a usage error.
func required(flags ...[2]string) error {
	for _, f := range flags {
		if strings.TrimSpace(f[1]) == "" {
			return usagef("--%s is required", f[0])
		}
	}
	return nil
}

// run is the whole CLI: 0 on success, 1 when the command failed, 2 on a bad
// command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{Out: stdout, Getenv: getenv}
	defer e.close()
	e.defaults()

	top := flag.NewFlagSet("admin", flag.ContinueOnError)
	top.SetOutput(stderr)
	e.commonFlags(top)
	top.Usage = func() { printUsage(stderr, top) }
	if err := top.Parse(args); err != nil {
		return helpOr2(err)
	}
	rest := top.Args()
	if len(rest) == 0 {
		printUsage(stderr, top)
		return 2
	}
	if rest[0] == "help" {
		printUsage(stdout, top)
		return 0
	}
	cmd, n, ok := lookup(rest)
	if !ok {
		fmt.Fprintf(stderr, "unknown command %q\n\n", strings.Join(rest[:min(2, len(rest))], " "))
		printUsage(stderr, top)
		return 2
	}
	fs := flag.NewFlagSet("admin "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	act := cmd.Flags(fs)
	own := ownFlags(fs)
	e.commonFlags(fs) // also accepted after the command, defaults as parsed so far
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: admin %s [flags]\n  %s\n", cmd.Name, cmd.Summary)
		n := 0
		own.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(stderr, "\nflags:")
			own.SetOutput(stderr)
			own.PrintDefaults()
		}
		fmt.Fprintln(stderr, "\nplus the store flags and --json: see 'admin help'")
	}
	if err := fs.Parse(rest[n:]); err != nil {
		return helpOr2(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	err := act(ctx, e)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "error:", ue.msg)
		fs.Usage()
		return 2
	default:
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
}

// ownFlags copies a command's own flags, so its usage is not buried under
// the store flags every command shares.
func ownFlags(fs *flag.FlagSet) *flag.FlagSet {
	own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		own.Var(f.Value, f.Name, f.Usage)
		own.Lookup(f.Name).DefValue = f.DefValue
	})
	return own
}

func helpOr2(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// lookup finds the command named by the first one or two words of args.
func lookup(args []string) (command, int, bool) {
	if len(args) >= 2 {
		if c, ok := commands[args[0]+" "+args[1]]; ok {
			return c, 2, true
		}
	}
	c, ok := commands[args[0]]
	return c, 1, ok
}

func printUsage(w io.Writer, top *flag.FlagSet) {
	fmt.Fprintln(w, "usage: admin [store flags] <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-22s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nstore flags (also accepted after the command):")
	top.SetOutput(w)
	top.PrintDefaults()
	fmt.Fprintln(w, "\nrun 'admin <command> -h' for a command's flags")
}
