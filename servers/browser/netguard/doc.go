// Package netguard decides which network addresses the browser may reach and enforces it with a
// loopback HTTP proxy that resolves every host itself, checks each address it connects to, and
// dials exactly the address it checked, so DNS rebinding cannot slip a private address past it.
package netguard
