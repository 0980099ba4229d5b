// Package netguard decides which network addresses the browser may reach (global unicast only)
// and enforces it with a loopback HTTP proxy that resolves every host itself, checks each
// address it connects to, and dials exactly the address it checked, so DNS rebinding cannot
// slip a private address past it. The proxy admits only connections whose client socket is held
// by the browser the server started or its descendants.
package netguard
