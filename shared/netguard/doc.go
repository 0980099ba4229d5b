// Package netguard decides which network addresses may be reached (global unicast only) and
// enforces it at dial time: every address is checked in the dialer's Control hook, after DNS,
// so the address checked is the address used and DNS rebinding cannot slip a private address
// past it. The auth server's fetches of client metadata documents dial through
// Policy.DialContext; the browser server's Chromium goes through a loopback HTTP proxy that
// resolves every host itself and admits only connections whose client socket is held by the
// browser the server started or its descendants.
package netguard
