// Command drive is the fleet's Google Drive MCP server (port 9006): search, read (Docs as
// Markdown, Sheets as CSV, Slides and PDFs as text), download, upload, organise and share files
// in My Drive and shared drives, on the account of the shared Google sign-in.
package main

import (
	"flag"
	"os"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
	"github.com/jck411/mcp-servers/shared/recipients"
)

func main() { os.Exit(kit.Main(spec())) }

// product is the Drive API as this server uses it; uploads go to /upload/drive/v3/ on the same host.
var product = googleserver.Product{Server: "drive", Name: "Google Drive", EndpointFlag: "drive-endpoint", Endpoint: "https://www.googleapis.com/drive/v3/"}

// settings are the drive server's own flags.
type settings struct {
	google         googleserver.Flags
	sheetsEndpoint string
	docsEndpoint   string
	downloadsDir   string
	uploadsDir     string
	allowPublic    bool
	allowed        recipients.Allowlist
	maxReadChars   int
	maxBytes       int
}

// spec describes the drive server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "drive",
		Title:        "Google Drive",
		Port:         9006,
		Instructions: "Google Drive (My Drive and shared drives) for the signed-in account.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "folder_id", Meaning: "a folder or shared drive id (root: My Drive): where a file goes, or the folder to list", Short: "folder id or root"},
			{Name: "page_size", Meaning: "how many to return per page"},
			{Name: "document_id", Meaning: "a Google Doc's file id (search_files kind doc)", Short: "Doc's file id"},
			{Name: "file_id", Meaning: "a Drive file or folder id from search_files or list_folder", Short: "id from search_files"},
			{Name: "spreadsheet_id", Meaning: "a Google Sheet's file id (search_files kind sheet)", Short: "Sheet's file id"},
			{Name: "page_token", Meaning: "next_page_token of the previous call"},
		},
		Flags: func(fs *flag.FlagSet) {
			st.google.Register(fs, product)
			fs.StringVar(&st.sheetsEndpoint, "sheets-endpoint", sheetsProduct.Endpoint, "base URL of the Google Sheets API")
			fs.StringVar(&st.docsEndpoint, "docs-endpoint", docsProduct.Endpoint, "base URL of the Google Docs API")
			fs.StringVar(&st.downloadsDir, "downloads-dir", "", "where download_file saves files (default: STATE-DIR/downloads)")
			fs.StringVar(&st.uploadsDir, "uploads-dir", "", "the only directory upload_file, create_file and update_file_content may read local files from (default: none; content then comes inline)")
			fs.Var(&st.allowed, recipients.Flag, recipients.Usage)
			fs.BoolVar(&st.allowPublic, "allow-public-sharing", false, "let share_file make files public (type anyone); refused otherwise")
			fs.IntVar(&st.maxReadChars, "max-read-chars", 20000, "characters of file text returned per read_file call; longer texts are paged")
			fs.IntVar(&st.maxBytes, "max-file-bytes", 50<<20, "largest file downloaded, read or uploaded")
		},
		Setup: func(s *kit.Server) error {
			d, err := newDrive(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			s.OnClose(d.close)
			addFindTools(s, d)
			addReadTools(s, d)
			addResources(s, d)
			addExtractTools(s, d)
			addWriteTools(s, d)
			addShareTools(s, d)
			addCollabTools(s, d)
			addSheetTools(s, d)
			addDocTools(s, d)
			return nil
		},
		Commands: map[string]kit.Command{"auth": oauth.Google.Command("drive", nil)},
	}
}
