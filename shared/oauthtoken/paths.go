package oauthtoken

import (
	"os"
	"path/filepath"
)

// StateHome is $XDG_STATE_HOME, else ~/.local/state ($HOME, else the user's home folder).
func StateHome(getenv func(string) string) string {
	if state := getenv("XDG_STATE_HOME"); state != "" {
		return state
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "state")
}

// IsDir reports whether p is an existing folder.
func IsDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// ClientLocations name where an OAuth client file may be, in the order ClientFile tries them.
type ClientLocations struct {
	Env        string // the variable that names it, e.g. "MCP_GOOGLE_CLIENT_FILE"
	Credential string // its name in $CREDENTIALS_DIRECTORY (systemd), e.g. "google_client.json"
	System     string // the host's file, used when it exists
}

// ClientFile is the client file: $Env, else $CREDENTIALS_DIRECTORY/Credential when it exists,
// else System when it exists, else client.json beside the token file.
func ClientFile(getenv func(string) string, l ClientLocations, tokenFile string) string {
	if p := getenv(l.Env); p != "" {
		return p
	}
	if d := getenv("CREDENTIALS_DIRECTORY"); d != "" {
		if p := filepath.Join(d, l.Credential); fileExists(p) {
			return p
		}
	}
	if fileExists(l.System) {
		return l.System
	}
	return filepath.Join(filepath.Dir(tokenFile), "client.json")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
