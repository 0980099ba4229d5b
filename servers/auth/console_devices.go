package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// device is one grant as the devices page shows it: an app the owner allowed to use a server.
type device struct {
	Grant      string    `json:"grant"`
	Client     string    `json:"client"` // the app's registered name
	ClientID   string    `json:"client_id"`
	Resource   string    `json:"resource"`
	Scopes     []string  `json:"scopes"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used,omitzero"` // the last refresh token issued (at sign-in or refresh)
	Revoked    time.Time `json:"revoked,omitzero"`
	RevokedWhy string    `json:"revoked_why,omitempty"`
}

// devices lists the grants, live ones first, newest first.
func (c *console) devices(ctx context.Context) ([]device, error) {
	rows, err := c.db.sql.QueryContext(ctx, `SELECT g.id, COALESCE(c.name, ''), g.client_id, g.resource, g.scopes, g.created, g.revoked, g.revoked_why,
		COALESCE((SELECT max(r.created) FROM refresh_tokens r WHERE r.grant_id = g.id), 0)
		FROM grants g LEFT JOIN clients c ON c.id = g.client_id ORDER BY g.revoked > 0, g.created DESC`)
	if err != nil {
		return nil, fmt.Errorf("list the devices: %w", err)
	}
	defer rows.Close()
	var out []device
	for rows.Next() {
		var d device
		var scopes string
		var created, revoked, used int64
		if err := rows.Scan(&d.Grant, &d.Client, &d.ClientID, &d.Resource, &scopes, &created, &revoked, &d.RevokedWhy, &used); err != nil {
			return nil, fmt.Errorf("list the devices: %w", err)
		}
		d.Scopes, d.Created = strings.Fields(scopes), time.Unix(created, 0).UTC()
		if revoked > 0 {
			d.Revoked = time.Unix(revoked, 0).UTC()
		}
		if used > 0 {
			d.LastUsed = time.Unix(used, 0).UTC()
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// devicesPage lists the grants with a button to revoke each live one.
func (cu *consoleUI) devicesPage(w http.ResponseWriter, r *http.Request, o *owner) {
	devs, err := cu.c.devices(r.Context())
	d := consoleData{Page: "devices", Title: "Devices", Owner: o, Devices: devs, Lapse: accessTokenLifetime}
	if err != nil {
		d.Error = err.Error()
	}
	cu.show(w, http.StatusOK, d)
}

// revokeDevice revokes one grant: its refresh tokens stop at once; the access tokens it has
// lapse within accessTokenLifetime (the servers check signatures, not this database).
func (cu *consoleUI) revokeDevice(w http.ResponseWriter, r *http.Request, o *owner) {
	id := r.PostForm.Get("grant")
	res, err := cu.c.db.sql.ExecContext(r.Context(), "UPDATE grants SET revoked = ?, revoked_why = 'revoked by the owner in the console' WHERE id = ? AND revoked = 0",
		cu.c.db.now().Unix(), id)
	if err != nil {
		cu.message(w, http.StatusInternalServerError, "Not revoked", "The grant could not be revoked; see the server log.")
		cu.log.Error("console: revoke", "error", err.Error())
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		cu.message(w, http.StatusNotFound, "Not revoked", "No live grant has that id: it is revoked already, or gone. Reload the devices page.")
		return
	}
	cu.c.audit(r.Context(), o.Passkey, "revoke", "grant "+id)
	http.Redirect(w, r, consoleDevicesPath, http.StatusSeeOther)
}
