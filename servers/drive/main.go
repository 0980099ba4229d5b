// Command drive is the fleet's Google Drive MCP server (port 9006): search, read (Docs as
// Markdown, Sheets as CSV, Slides and PDFs as text), download, upload, organise and share files
// in My Drive and shared drives, on the account of the shared Google sign-in.
package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/jck411/mcp-servers/shared/googleauth"
	"github.com/jck411/mcp-servers/shared/kit"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the drive server's own flags.
type settings struct {
	tokenFile    string
	clientFile   string
	endpoint     string
	downloadsDir string
	uploadsDir   string
	allowPublic  bool
	maxReadChars int
	maxBytes     int
	concurrent   int
}

// spec describes the drive server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "drive",
		Title:        "Google Drive",
		Port:         9006,
		Instructions: "Google Drive (My Drive and shared drives) for the signed-in account. Find files with search_files (plain words search full text; Drive query syntax such as \"name contains 'plan' and mimeType = 'application/vnd.google-apps.folder'\" is passed through), read them with read_file (Docs as Markdown, Sheets as CSV per sheet, Slides and PDFs as text). Sharing with anyone outside the named people is irreversible exposure: confirm with the user first.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.tokenFile, "google-token-file", "", "the Google token file the Google servers share (default: "+googleauth.SystemDir+"/token.json when that folder exists, else ~/.local/state/mcp-servers/google/token.json)")
			fs.StringVar(&st.clientFile, "google-client-file", "", "the Google OAuth client JSON, Desktop app type (default: $CREDENTIALS_DIRECTORY/google_client.json, else client.json beside the token file)")
			fs.StringVar(&st.endpoint, "drive-endpoint", "https://www.googleapis.com/drive/v3/", "base URL of the Google Drive API (uploads go to /upload/drive/v3/ on the same host)")
			fs.StringVar(&st.downloadsDir, "downloads-dir", "", "where download_file saves files (default: STATE-DIR/downloads)")
			fs.StringVar(&st.uploadsDir, "uploads-dir", "", "the only directory upload_file, create_file and update_file_content may read local files from (default: none; content then comes inline)")
			fs.BoolVar(&st.allowPublic, "allow-public-sharing", false, "let share_file make files public (type anyone); refused otherwise")
			fs.IntVar(&st.maxReadChars, "max-read-chars", 20000, "characters of file text returned per read_file call; longer texts are paged")
			fs.IntVar(&st.maxBytes, "max-file-bytes", 50<<20, "largest file downloaded, read or uploaded")
			fs.IntVar(&st.concurrent, "max-concurrent", 5, "Drive API calls in flight at once")
		},
		Setup: func(s *kit.Server) error {
			d, err := newDrive(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			s.AddHealthCheck("google token", d.healthCheck)
			addFindTools(s, d)
			addReadTools(s, d)
			addWriteTools(s, d)
			addShareTools(s, d)
			return nil
		},
		Commands: map[string]func(context.Context, []string, io.Writer, io.Writer) int{"auth": googleauth.Command(googleauth.CommandOptions{Server: "drive"})},
	}
}
