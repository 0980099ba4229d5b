package main

import (
	"context"
	"strings"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
)

// The fleet's recipient allowlist (--allowed-recipients) on Drive: a share reaches the user,
// group or domain it names, and a file put into a folder or shared drive reaches everyone who
// can open that folder, so both are checked before Drive is asked.

// shareReach refuses a share to a user, group or domain the allowlist does not allow, and one
// to anyone with the link unless --allow-public-sharing.
func (d *drv) shareReach(typ, email, domain string) error {
	switch typ {
	case "user", "group":
		_, err := d.allowed.Check(email)
		return err
	case "domain":
		if !d.allowed.AllowsDomain(domain) {
			return recipients.DomainRefusal(strings.ToLower(domain))
		}
	case "anyone":
		if !d.allowPublic {
			return kit.Errorf(kit.CodeInvalidInput, "making files public is disabled on this server (start it with --allow-public-sharing); share with people, a group or a domain instead")
		}
	}
	return nil
}

// folderReach refuses to put a file into folder when someone who can open the folder is
// outside the allowlist (its owner included): the file would be shared with them. My Drive's
// root is the user's own; with the allowlist open nothing is looked up.
func (d *drv) folderReach(ctx context.Context, folder string) error {
	if d.allowed.Open() || folder == "" || folder == "root" {
		return nil
	}
	perms, err := d.permissions(ctx, folder)
	if err != nil {
		return err
	}
	self := strings.ToLower(d.google.Status(ctx).Account)
	var outside []string
	for _, p := range perms {
		if outsider(p, self, &d.allowed, d.allowPublic) {
			outside = append(outside, toPermission(p).who())
		}
	}
	if len(outside) > 0 {
		return kit.Errorf(kit.CodeInvalidInput, "folder %s is shared with %s, outside the allowed recipients on this server (--%s, %s): a file put there is shared with them too; pick another folder, or ask the owner to add them",
			folder, strings.Join(outside, ", "), recipients.Flag, recipients.Env)
	}
	return nil
}

// outsider reports whether a folder's permission lets someone the rule does not allow open
// what is put there.
func outsider(p *gdrive.Permission, self string, allowed *recipients.Allowlist, public bool) bool {
	switch p.Type {
	case "user", "group":
		return !strings.EqualFold(p.EmailAddress, self) && !allowed.Allows(p.EmailAddress)
	case "domain":
		return !allowed.AllowsDomain(p.Domain)
	case "anyone":
		return !public
	}
	return true // a kind of permission the rule does not know: fail closed
}
