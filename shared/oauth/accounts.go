package oauth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DefaultAccount is the label of the sign-in kept in the token file itself (token.json); every
// other account's token lives beside it in token-LABEL.json.
const DefaultAccount = "default"

// LabelPattern is what an account label may be: 1 to 32 of a-z, 0-9, _ and -.
const LabelPattern = `^[a-z0-9_-]{1,32}$`

var labelRE = regexp.MustCompile(LabelPattern)

// CheckLabel reports why label cannot name an account, or nil.
func CheckLabel(label string) error {
	if !labelRE.MatchString(label) {
		return fmt.Errorf("account %q: give 1 to 32 of a-z, 0-9, _ and - (for example work)", label)
	}
	return nil
}

// AccountFile is the token file of the account label, beside token (the default account's file):
// token itself for "" and DefaultAccount, else token-LABEL.json (the extension kept).
func AccountFile(token, label string) string {
	if label == "" || label == DefaultAccount {
		return token
	}
	ext := filepath.Ext(token)
	return strings.TrimSuffix(token, ext) + "-" + label + ext
}

// Accounts lists the accounts signed in beside token: DefaultAccount first when token exists,
// then the others' labels sorted. Files whose label is not valid are not accounts.
func Accounts(token string) ([]string, error) {
	var out []string
	if _, err := os.Lstat(token); err == nil {
		out = append(out, DefaultAccount)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list the signed-in accounts: %w", err)
	}
	ext := filepath.Ext(token)
	base := strings.TrimSuffix(token, ext)
	matches, err := filepath.Glob(globEscape(base) + "-*" + globEscape(ext))
	if err != nil {
		return nil, fmt.Errorf("list the signed-in accounts: %w", err)
	}
	var labels []string
	for _, m := range matches {
		label := strings.TrimSuffix(strings.TrimPrefix(m, base+"-"), ext)
		if label != DefaultAccount && CheckLabel(label) == nil {
			labels = append(labels, label)
		}
	}
	slices.Sort(labels)
	return append(out, labels...), nil
}

// globEscape quotes the characters filepath.Glob treats as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
