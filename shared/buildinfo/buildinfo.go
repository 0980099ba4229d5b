// Package buildinfo holds the version stamped into every binary at link time.
package buildinfo

import "runtime/debug"

// Version is set with -ldflags "-X github.com/jck411/mcp-servers/shared/buildinfo.Version=v1.2.3".
var Version = ""

// String returns the stamped version, else the module version Go recorded, else "dev".
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
