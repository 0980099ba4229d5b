package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
)

// command is a host command such as `auth enroll`.
type command struct {
	summary string
	usage   string // after "auth NAME"
	fn      func(ctx context.Context, d *db, args []string, stdout io.Writer) error
}

// commands are what the owner runs on the host, against the same state file.
var commands = map[string]command{
	"enroll":  {"print a one-time code and the URL (the issuer's /enroll) to enrol a passkey with it", "", cmdEnroll},
	"clients": {"list registered clients, or revoke one (its grants end too)", "list | revoke ID", cmdClients},
	"grants":  {"list grants, or revoke one (its refresh tokens stop working)", "list | revoke ID", cmdGrants},
	"keys":    {"rotate the signing key now (the old one stays published until its tokens expire)", "rotate", cmdKeys},
	"passkeys": {"list the owner's passkeys, or remove one (it can no longer sign in; its browsers are signed out and the grants made with it revoked)",
		"list | remove ID", cmdPasskeys},
}

func commandNames() string {
	return strings.Join(slices.Sorted(maps.Keys(commands)), ", ")
}

// commandsHelp ends --help with the host commands.
func commandsHelp() string {
	var b strings.Builder
	b.WriteString("\nCommands (run on the host, as the service's user, with the same --state-dir):\n")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		c := commands[n]
		fmt.Fprintf(&b, "  auth %s %s\n    \t%s\n", n, c.usage, c.summary)
	}
	return b.String()
}

// run parses --state-dir and runs the command: 0 done, 1 failed, 2 bad usage.
func (c command) run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("auth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "directory of auth.db (default: $MCP_STATE_DIR, $STATE_DIRECTORY, else ~/.local/state/mcp-servers/auth)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: auth COMMAND %s [--state-dir DIR]\n%s\n", c.usage, c.summary)
		fs.PrintDefaults()
	}
	// Flags may come before or after the subcommand's words.
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	dir := stateDirOr(*stateDir, getenv)
	// A command on the wrong folder would make a new, empty state the server never reads.
	if _, err := os.Stat(filepath.Join(dir, dbFile)); err != nil {
		fmt.Fprintf(stderr, "auth: no %s in %s: give the server's --state-dir (on the host: /var/lib/mcp-servers/auth), and start the server once first\n", dbFile, dir)
		return 1
	}
	d, err := openDB(dir, nil)
	if err != nil {
		fmt.Fprintf(stderr, "auth: %v\n", err)
		return 1
	}
	defer d.Close()
	if err := c.fn(ctx, d, words, stdout); err != nil {
		fmt.Fprintf(stderr, "auth: %v\n", err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a command given the wrong words.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func cmdEnroll(ctx context.Context, d *db, args []string, stdout io.Writer) error {
	if len(args) != 0 {
		return usageError{"enroll takes no arguments"}
	}
	code, err := (&passkeys{db: d}).newEnrolCode(ctx)
	if err != nil {
		return err
	}
	issuer, err := d.meta(ctx, "issuer")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Enrolment code (works once, for %s):\n\n    %s\n\n", enrolCodeLifetime, code)
	if issuer == "" {
		fmt.Fprintf(stdout, "Open the auth server's %s page (its --issuer URL followed by %s) in the browser that should hold the passkey, enter the code and create the passkey.\n", enrolPath, enrolPath)
		return nil
	}
	fmt.Fprintf(stdout, "Open %s%s in the browser that should hold the passkey, enter the code and create the passkey.\n", issuer, enrolPath)
	if u, err := url.Parse(issuer); err == nil && config.IsLoopback(u.Hostname()) {
		fmt.Fprintf(stdout, "\nThe issuer is still %s, which only this machine reaches: publish it first (MCP_ISSUER in auth.env, docs/remote.md), restart the server, and run auth enroll again.\n", issuer)
	}
	return nil
}

func when(unix int64) string {
	if unix == 0 {
		return "-"
	}
	return time.Unix(unix, 0).UTC().Format("2006-01-02 15:04")
}

func cmdClients(ctx context.Context, d *db, args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "list":
		rows, err := d.sql.QueryContext(ctx, "SELECT id, kind, name, redirect_uris, created, revoked FROM clients ORDER BY created")
		if err != nil {
			return fmt.Errorf("list clients: %w", err)
		}
		defer rows.Close()
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tNAME\tREDIRECT URIS\tCREATED\tREVOKED")
		for rows.Next() {
			var id, kind, name, uris string
			var created, revoked int64
			if err := rows.Scan(&id, &kind, &name, &uris, &created, &revoked); err != nil {
				return fmt.Errorf("list clients: %w", err)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", id, kind, name, uris, when(created), when(revoked))
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list clients: %w", err)
		}
		return tw.Flush()
	case len(args) == 2 && args[0] == "revoke":
		return revoke(ctx, d, "clients", args[1], func(tx *sql.Tx, now int64) error {
			_, err := tx.ExecContext(ctx, "UPDATE grants SET revoked = ?, revoked_why = 'client revoked by the owner' WHERE client_id = ? AND revoked = 0", now, args[1])
			return err
		}, stdout)
	}
	return usageError{"usage: auth clients list | auth clients revoke ID"}
}

func cmdGrants(ctx context.Context, d *db, args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "list":
		rows, err := d.sql.QueryContext(ctx, "SELECT id, client_id, resource, scopes, created, revoked, revoked_why, passkey FROM grants ORDER BY created")
		if err != nil {
			return fmt.Errorf("list grants: %w", err)
		}
		defer rows.Close()
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tCLIENT\tRESOURCE\tSCOPES\tCREATED\tREVOKED\tPASSKEY")
		for rows.Next() {
			var id, client, res, scopes, why, passkey string
			var created, revoked int64
			if err := rows.Scan(&id, &client, &res, &scopes, &created, &revoked, &why, &passkey); err != nil {
				return fmt.Errorf("list grants: %w", err)
			}
			rv := when(revoked)
			if why != "" {
				rv += " (" + why + ")"
			}
			if passkey == "" {
				passkey = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, client, res, scopes, when(created), rv, passkey)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list grants: %w", err)
		}
		return tw.Flush()
	case len(args) == 2 && args[0] == "revoke":
		return revoke(ctx, d, "grants", args[1], nil, stdout)
	}
	return usageError{"usage: auth grants list | auth grants revoke ID"}
}

// revoke marks a client or grant revoked (and runs also in the same transaction).
func revoke(ctx context.Context, d *db, table, id string, also func(*sql.Tx, int64) error, stdout io.Writer) error {
	now := d.now().Unix()
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	set := "revoked = ?"
	if table == "grants" {
		set += ", revoked_why = 'revoked by the owner'"
	}
	r, err := tx.ExecContext(ctx, "UPDATE "+table+" SET "+set+" WHERE id = ? AND revoked = 0", now, id)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("no %s %q that is not revoked already: see auth %s list", strings.TrimSuffix(table, "s"), id, table)
	}
	if also != nil {
		if err := also(tx, now); err != nil {
			return fmt.Errorf("revoke: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	fmt.Fprintf(stdout, "Revoked %s %s. Access tokens already issued lapse within %s.\n", strings.TrimSuffix(table, "s"), id, accessTokenLifetime)
	return nil
}

func cmdKeys(ctx context.Context, d *db, args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "rotate" {
		return usageError{"usage: auth keys rotate"}
	}
	k, err := newKeyring(d, 0).rotate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "New signing key %s, published now, signs from %s; the previous one stays published %s after that.\n",
		k.id, k.activeFrom.UTC().Format(time.RFC3339), keyOverlap)
	return nil
}

func cmdPasskeys(ctx context.Context, d *db, args []string, stdout io.Writer) error {
	p := &passkeys{db: d}
	switch {
	case len(args) == 1 && args[0] == "list":
		list, err := p.list(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "No passkey is enrolled: run auth enroll.")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tENROLLED\tLAST USED\tKIND\tSESSIONS\tGRANTS\tSTATUS")
		for _, k := range list {
			kind := "device-bound"
			if k.Synced {
				kind = "synced"
			}
			if len(k.Transport) > 0 {
				kind += " (" + strings.Join(k.Transport, ",") + ")"
			}
			status := "ok"
			if k.Cloned {
				status = "REFUSED: its signature counter went backwards (copied?); remove it"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", k.ID, whenTime(k.Created), whenTime(k.LastUsed), kind, k.Sessions, k.Grants, status)
		}
		return tw.Flush()
	case len(args) == 2 && args[0] == "remove":
		r, err := p.remove(ctx, args[1])
		if errors.Is(err, errUnknownPasskey) {
			return fmt.Errorf("%w: see auth passkeys list", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed passkey %s: it can no longer sign in. Signed out %d browser(s), dropped %d sign-in(s) in progress, revoked %d grant(s) made with it (those apps must sign in again; access tokens already issued lapse within %s).\n",
			args[1], r.Sessions, r.SignIns, r.Grants, accessTokenLifetime)
		if r.Left == 0 {
			fmt.Fprintln(stdout, "No passkey is left: nobody can sign in until you run auth enroll and enrol a new one.")
		}
		return nil
	}
	return usageError{"usage: auth passkeys list | auth passkeys remove ID"}
}

func whenTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return when(t.Unix())
}
