// Command gmail is the fleet's Gmail MCP server (port 9005): search and read mail and threads,
// send, reply and forward (or draft them in the thread) from the account or its aliases, drafts,
// labels, thread actions and filters, on the account of the shared Google sign-in.
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

// product is the Gmail API as this server uses it.
var product = googleserver.Product{Server: "gmail", Name: "Gmail", EndpointFlag: "gmail-endpoint", Endpoint: "https://gmail.googleapis.com/"}

// settings are the gmail server's own flags.
type settings struct {
	google         googleserver.Flags
	downloadsDir   string
	attachmentsDir string
	allowed        recipients.Allowlist
	maxBodyChars   int
	inlineBytes    int
	maxAttachBytes int
	peopleEndpoint string
}

// spec describes the gmail server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "gmail",
		Title:        "Gmail",
		Port:         9005,
		Instructions: "Gmail for the signed-in Google account.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "no_signature", Meaning: "leave out the Gmail signature, which is otherwise added as Gmail does"},
			{Name: "quote", Meaning: "quote the original below the reply", Short: "quote the original below"},
			{Name: "reply_all", Meaning: "reply to the original To and Cc too"},
		},
		Flags: func(fs *flag.FlagSet) {
			st.google.Register(fs, product)
			fs.StringVar(&st.downloadsDir, "downloads-dir", "", "where get_attachment saves attachments too large to return inline (default: STATE-DIR/downloads)")
			fs.StringVar(&st.attachmentsDir, "attachments-dir", "", "the only directory send tools may attach local files from (default: none; attachments then come as base64)")
			fs.Var(&st.allowed, recipients.Flag, recipients.Usage)
			fs.StringVar(&st.peopleEndpoint, peopleProduct.EndpointFlag, peopleProduct.Endpoint, "base URL of the People API (the contacts toolset)")
			fs.IntVar(&st.maxBodyChars, "max-body-chars", 20000, "characters of a message body returned per call; longer bodies are paged")
			fs.IntVar(&st.inlineBytes, "inline-attachment-bytes", 512<<10, "attachments up to this size are returned inline; larger ones are saved to --downloads-dir")
			fs.IntVar(&st.maxAttachBytes, "max-attachment-bytes", 25<<20, "largest attachment downloaded, sent or forwarded")
		},
		Setup: func(s *kit.Server) error {
			m, err := newMailbox(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			s.OnClose(m.close)
			addMessageTools(s, m)
			addAttachmentTools(s, m)
			addComposeTools(s, m)
			addDraftTools(s, m)
			addIdentityTools(s, m)
			addLabelTools(s, m)
			addFilterTools(s, m)
			addContactTools(s, m)
			addPrompts(s, m)
			return nil
		},
		Commands: map[string]kit.Command{"auth": oauth.Google.Command("gmail", nil)},
	}
}
