package googleserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"
)

// apiErr is the error a generated client returns for an answer: googleapi.CheckResponse's.
func apiErr(status int, body, account string) error {
	h := http.Header{}
	if account != "" {
		h.Set(accountHeader, account)
	}
	return fmt.Errorf("wrapped: %w", googleapi.CheckResponse(&http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}))
}

func TestAsAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		body        string
		account     string
		wantMsg     string
		wantReasons []string
	}{
		{"google json", 403, `{"error":{"code":403,"message":"The user has exceeded their Drive storage quota","errors":[{"domain":"usageLimits","reason":"storageQuotaExceeded"}],"status":"PERMISSION_DENIED"}}`, "work",
			"The user has exceeded their Drive storage quota", []string{"storageQuotaExceeded", "PERMISSION_DENIED"}},
		{"status only", 404, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`, "", "Requested entity was not found.", []string{"NOT_FOUND"}},
		{"not json", 502, "<html>bad gateway</html>", "", "<html>bad gateway</html>", nil},
		{"empty", 500, "", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := apiErr(tt.status, tt.body, tt.account)
			ae, ok := AsAPIError(err)
			if !ok || ae.Code != tt.status || ae.Message != tt.wantMsg || strings.Join(ae.Reasons, ",") != strings.Join(tt.wantReasons, ",") || ae.Account != tt.account {
				t.Fatalf("AsAPIError(%v) = %+v, %v", err, ae, ok)
			}
			var ge *googleapi.Error
			if !errors.As(ae, &ge) || ge.Code != tt.status {
				t.Errorf("the *googleapi.Error is not kept: %v", ae)
			}
			if !IsStatus(err, tt.status) || IsStatus(err, 200) {
				t.Errorf("IsStatus(%d) wrong for %v", tt.status, err)
			}
			if len(tt.wantReasons) > 0 && (!ae.HasReason("x", tt.wantReasons[0]) || ae.HasReason("x")) {
				t.Errorf("HasReason wrong for %v", ae.Reasons)
			}
		})
	}
	if _, ok := AsAPIError(errors.New("connection refused")); ok {
		t.Error("a transport error read as an API error")
	}
}

// Fail maps a generated client's error as it maps an *APIError: the account the transport
// named goes into the login command, and For names its API.
func TestFailGeneratedError(t *testing.T) {
	t.Parallel()
	acct := &Account{product: testProduct}
	scope := `{"error":{"code":403,"message":"Request had insufficient authentication scopes."}}`
	if msg := acct.Fail(apiErr(403, scope, "work"), "file f").Error(); !strings.Contains(msg, "run `drive auth login --account work` without --read-only") {
		t.Errorf("scope error of work: %s", msg)
	}
	sheets := acct.For(Product{Server: "drive", Name: "Google Sheets", EndpointFlag: "sheets-endpoint"})
	bad := `{"error":{"code":400,"message":"Unable to parse range: X"}}`
	if msg := sheets.Fail(apiErr(400, bad, "default"), "spreadsheet s2").Error(); !strings.Contains(msg, "Google Sheets refused the request: Unable to parse range: X") {
		t.Errorf("Fail = %q", msg)
	}
	if acct.product.Name != testProduct.Name {
		t.Errorf("For changed the account it was made from: %s", acct.product.Name)
	}
}
