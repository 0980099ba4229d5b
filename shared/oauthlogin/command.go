package oauthlogin

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Subcommand is one of `NAME auth login|status|logout`.
type Subcommand func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Usage says in one line each what a provider's auth subcommands do.
type Usage struct {
	Login, Status, Logout string
}

// Dispatch returns the `NAME auth login|status|logout` command for kit.Spec.Commands: it runs
// the subcommand args[0] names, or prints the usage, one line per subcommand, which
// `NAME --help` also lists.
func Dispatch(server string, u Usage, login, status, logout Subcommand) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := fmt.Sprintf("usage: %s auth login|status|logout [flags]\n"+
		"  %s auth login    %s\n"+
		"  %s auth status   %s\n"+
		"  %s auth logout   %s\n"+
		"Each takes --help for its flags.",
		server, server, u.Login, server, u.Status, server, u.Logout)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		switch args[0] {
		case "login":
			return login(ctx, args[1:], stdout, stderr)
		case "status":
			return status(ctx, args[1:], stdout, stderr)
		case "logout":
			return logout(ctx, args[1:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			fmt.Fprintln(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "%s auth: unknown command %q\n%s\n", server, args[0], usage)
		return 2
	}
}

// MissingClient is the message for a client file that does not exist: where it was looked for,
// what else points to one, and where to create one.
type MissingClient struct {
	Server   string // e.g. "gmail"
	Provider string // "Google" or "Spotify"
	Path     string // the file looked for
	Flag     string // the flag that names another file, without dashes
	Env      string // the environment variable that does
	Create   string // how to create the client, one sentence
	Doc      string // the doc with the steps, e.g. docs/google.md
}

// String is the message, several lines, ending in a newline.
func (m MissingClient) String() string {
	return fmt.Sprintf("%s auth login: no %s OAuth client file at %s.\n"+
		"Save the client JSON there, or name another file with --%s or $%s.\n"+
		"%s\n"+
		"Step by step: %s.\n", m.Server, m.Provider, m.Path, m.Flag, m.Env, m.Create, m.Doc)
}

// Defaults fills in os.Getenv and os.Stdin where a command's options left them nil.
func Defaults(getenv *func(string) string, stdin *io.Reader) {
	if *getenv == nil {
		*getenv = os.Getenv
	}
	if *stdin == nil {
		*stdin = os.Stdin
	}
}

// Files are the token and client files every auth subcommand takes as flags.
type Files struct {
	Client, Token string
}

// FileFlags name a provider's file flags and say what they are.
type FileFlags struct {
	Token, TokenUsage   string // e.g. "google-token-file"
	Client, ClientUsage string
}

// FlagSet is the flag set of `SERVER auth NAME`, writing its errors and help to stderr, with
// the file flags set into f.
func (f *Files) FlagSet(server, name string, stderr io.Writer, ff FileFlags) *flag.FlagSet {
	fs := flag.NewFlagSet(server+" auth "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.Token, ff.Token, "", ff.TokenUsage)
	fs.StringVar(&f.Client, ff.Client, "", ff.ClientUsage)
	return fs
}

// Resolve fills the files the flags left empty: the token file first, then the client file,
// which may depend on it.
func (f *Files) Resolve(getenv func(string) string, defaultToken func(getenv func(string) string) string,
	defaultClient func(getenv func(string) string, tokenFile string) string) {
	if f.Token == "" {
		f.Token = defaultToken(getenv)
	}
	if f.Client == "" {
		f.Client = defaultClient(getenv, f.Token)
	}
}

// PrintStatus prints a status as indented JSON, or else as the lines text writes and then the
// message, if any. It returns the exit code: 0 when the sign-in is usable (ok), 1 otherwise.
func PrintStatus(w io.Writer, asJSON bool, status any, text func(), message string, ok bool) int {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(status)
	} else {
		text()
		if message != "" {
			fmt.Fprintln(w, message)
		}
	}
	if ok {
		return 0
	}
	return 1
}

// ExitParse is the exit code for a flag parse error: 0 for -help, 2 otherwise.
func ExitParse(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// OrUnknown is s, or "(unknown account)" when it is empty.
func OrUnknown(s string) string {
	if s == "" {
		return "(unknown account)"
	}
	return s
}
