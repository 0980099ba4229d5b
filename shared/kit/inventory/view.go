package inventory

import "github.com/jck411/mcp-servers/shared/kit/switches"

// Scope is what a request's credential allows.
type Scope struct {
	ReadOnly bool // an OAuth token without the write scope: only the tools that change nothing
}

// View is what one request may see and call: the tools the configuration offers and the
// run-time switches leave on, within what the request's credential allows and the request's
// narrowing keeps. It is the one place that decides this; tools/list, tools/call and the HTTP
// layer's scope check all ask it.
type View struct {
	inv       *Inventory
	narrowing Narrowing
	scope     Scope
	switched  *switches.State // the switches in force when the view was made
}

// View returns what a request with this narrowing and scope may see and call, under the
// run-time switches in force now.
func (inv *Inventory) View(n Narrowing, s Scope) View {
	return View{inv: inv, narrowing: n, scope: s, switched: inv.switched.Load()}
}

// Verdict is what a View says of one tool, in the order it is decided.
type Verdict int

// Verdicts.
const (
	Allowed    Verdict = iota // listed and callable
	Unknown                   // the server has no such tool
	NotOffered                // the configuration leaves it out (Inventory.NotOffered says which flag)
	Disabled                  // a run-time switch turns it off (View.Disabled says which)
	NeedsWrite                // it changes something and the credential allows only reading
	Narrowed                  // outside the request's narrowing: as if the server had no such tool
)

// Verdict decides one tool. Run-time switches, when they come, are one more input to the View
// and a verdict of their own here, so that everything asking the View obeys them.
func (v View) Verdict(name string) Verdict {
	e, ok := v.inv.tools[name]
	switch {
	case !ok:
		return Unknown
	case !v.inv.offered[name]:
		return NotOffered
	case offBy(v.switched, e) != "":
		return Disabled
	case v.scope.ReadOnly && !e.ReadOnly:
		return NeedsWrite
	case !v.narrowing.allows(e):
		return Narrowed
	}
	return Allowed
}

// Allows reports whether the request may see and call a tool.
func (v View) Allows(name string) bool { return v.Verdict(name) == Allowed }
